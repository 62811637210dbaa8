import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import i18next from 'i18next';
import { featuresDone, progressWords } from '../../src/modules/layers/ingest-words.js';
import { progressInWords } from '../../web/src/room/actions/job-words.js';
import de from '../../web/src/i18n/locales/de.js';

// The service words an ingest's progress in English; the page says it again in its language,
// from the very words the service makes (so that a change of them fails here, not in a page).
describe('ingest progress in the page’s language', () => {
  test('in English the page shows the service’s words as they are', () => {
    for (const words of [
      featuresDone('read', 26_008, 187_388),
      featuresDone('stored', 1, 1),
      progressWords(2, 'roads', featuresDone('read', 10, 20)),
      progressWords(1, 'only', 'building the spatial index'),
      'Making the raster tileable',
      'Publishing the layer',
      'Resuming after a restart',
    ])
      assert.equal(progressInWords(words), words);
  });

  test('in German every step is German, its numbers German too, a table named before it', async () => {
    for (const [ns, messages] of Object.entries(de)) i18next.addResourceBundle('de', ns, messages);
    await i18next.changeLanguage('de');
    try {
      assert.equal(progressInWords(featuresDone('read', 26_008, 187_388)), '26.008 von 187.388 Objekten gelesen');
      assert.equal(progressInWords(featuresDone('stored', 1, 1)), '1 von 1 Objekt gespeichert');
      assert.equal(
        progressInWords(progressWords(2, 'roads', 'building the spatial index')),
        'roads: räumlicher Index wird erstellt',
      );
      assert.equal(progressInWords('Publishing the layer'), 'Die Ebene wird veröffentlicht');
      assert.equal(progressInWords('a step the page does not know'), 'a step the page does not know');
    } finally {
      await i18next.changeLanguage('en');
    }
  });
});
