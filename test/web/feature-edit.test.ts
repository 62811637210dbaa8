import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, type RunningService, startService, until } from '../support/browser.js';
import { newUserInRoom, shoot } from '../support/web-accounts.js';

// Editing a layer feature's attributes in the web application, in Debian's Chromium against the
// real service: the inspector's form follows the layer's fields (a number, a list of choices),
// saves what changed based on the version read, and when someone changed the feature since, it
// says who and offers to read it again, overwriting nothing. Once, with SQLite, like the other
// browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const VIEW = { lng: 7.4474, lat: 46.948, zoom: 15 };

describe('editing the attributes of a feature in the page', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Awaited<ReturnType<typeof newUserInRoom>>;
  let layerId = '';
  let featureId = 0;

  /** The feature as the API reads it now. */
  const stored = async () => {
    const { body } = await ann.call('GET', `/api/layers/${layerId}/features`, undefined, ann.token);
    return (body.features as { id: number; properties: Record<string, unknown> }[]).find((f) => f.id === featureId)!;
  };
  /** Clicks the well (at the map's centre) until the inspector shows it: its tiles may still be on their way. */
  const openWell = async (page: Page) => {
    const box = (await page.getByTestId('map').boundingBox())!;
    const attributes = page.getByRole('region', { name: 'Feature attributes' });
    await until(
      async () => {
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        return attributes
          .getByRole('heading', { name: `Feature ${featureId}` })
          .waitFor({ timeout: 2000 })
          .then(() => true)
          .catch(() => false);
      },
      (shown) => shown,
    );
    return attributes;
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    ann = await newUserInRoom(browser, service, { roomId: 'wells-0001', name: 'Ann', view: VIEW });
    const layer = await ann.call(
      'POST',
      '/api/rooms/wells-0001/layers',
      {
        name: 'Wells',
        geometryType: 'Point',
        fields: [
          { name: 'name', type: 'text', required: true },
          { name: 'kind', type: 'choice', choices: ['well', 'spring'], default: 'well' },
          { name: 'depth', type: 'real' },
        ],
      },
      ann.token,
    );
    assert.equal(layer.status, 200, JSON.stringify(layer.body));
    layerId = (layer.body.layer as { id: string }).id;
    const feature = await ann.call(
      'POST',
      `/api/layers/${layerId}/features`,
      {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: [VIEW.lng, VIEW.lat] },
        properties: { name: 'North well' },
      },
      ann.token,
    );
    assert.equal(feature.status, 201, JSON.stringify(feature.body));
    featureId = feature.body.id as number;
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('the form follows the fields and saves what changed; the inspector shows it', async () => {
    const { page } = ann;
    const attributes = await openWell(page);
    // The feature was added after the page opened: the live channel brought the count.
    await page.getByText('1 feature, Point').waitFor();
    await attributes.getByRole('button', { name: 'Edit attributes' }).click();
    const form = page.getByRole('form', { name: "Edit the feature's attributes" });
    assert.equal(await form.getByLabel('depth').getAttribute('type'), 'number');
    assert.deepEqual(await form.getByLabel('kind').locator('option').allTextContents(), ['(none)', 'well', 'spring']);
    assert.equal(await form.getByLabel('kind').inputValue(), 'well', 'the default came with the new feature');
    await form.getByLabel('depth').fill('12.5');
    await form.getByLabel('kind').selectOption('spring');
    await shoot(page, 'feature-edit-form', form);
    await form.getByRole('button', { name: 'Save' }).click();
    await attributes.getByRole('row', { name: /depth\s+12\.5\s+number/ }).waitFor();
    assert.deepEqual((await stored()).properties, { name: 'North well', kind: 'spring', depth: 12.5 });
    assert.deepEqual(ann.errors, []);
  });

  test('a change made since the form was opened is not overwritten: the form says who, and reads it again', async () => {
    const { page } = ann;
    const attributes = await openWell(page);
    await attributes.getByRole('button', { name: 'Edit attributes' }).click();
    const form = page.getByRole('form', { name: "Edit the feature's attributes" });
    // Someone (Ann's script, here) changes the depth while the form is open.
    const script = await ann.call(
      'PATCH',
      `/api/layers/${layerId}/features/${featureId}`,
      { properties: { depth: 3 } },
      ann.token,
    );
    assert.equal(script.status, 200, JSON.stringify(script.body));
    await form.getByLabel('depth').fill('20');
    await form.getByRole('button', { name: 'Save' }).click();
    const alert = form.getByRole('alert');
    await alert.getByText(/Ann changed this feature since you opened it: nothing was saved/).waitFor();
    assert.equal((await stored()).properties.depth, 3, 'the change made since stays');
    await shoot(page, 'feature-edit-conflict', form);
    await alert.getByRole('button', { name: 'Read it again' }).click();
    await until(
      () => form.getByLabel('depth').inputValue(),
      (value) => value === '3',
    );
    await form.getByLabel('depth').fill('4');
    await form.getByRole('button', { name: 'Save' }).click();
    await attributes.getByRole('row', { name: /depth\s+4\s+number/ }).waitFor();
    assert.equal((await stored()).properties.depth, 4);
    assert.deepEqual(ann.errors, []);
  });
});
