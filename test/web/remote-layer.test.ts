import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, type RunningService, startService } from '../support/browser.js';
import { newUserInRoom, shoot } from '../support/web-accounts.js';

// A layer read from an address, in Debian's Chromium against the real service: an editor adds it
// from the layers panel, sees where it comes from, reads it again after the source changed, and
// is told why when a read fails (the data stays). The source is a server on loopback, which
// OUTBOUND_ALLOW_PRIVATE lets the service reach. Once, with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const VIEW = { lng: 7.4474, lat: 46.948, zoom: 12 };
const point = (name: string, lon: number) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [lon, VIEW.lat] },
  properties: { name },
});

describe('a layer read from an address, in the page', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let source: Server;
  let origin = '';
  /** What the source answers: a FeatureCollection, or a status. */
  let answer: object | number = { type: 'FeatureCollection', features: [point('Bern', 7.44)] };

  before(async () => {
    source = createServer((_, res) => {
      if (typeof answer === 'number') return res.writeHead(answer).end('down');
      res.writeHead(200, { 'content-type': 'application/geo+json' }).end(JSON.stringify(answer));
    });
    source.listen(0, '127.0.0.1');
    await once(source, 'listening');
    origin = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    service = await startService({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    source?.close();
  });

  test('an editor adds it, reads it again, and is told why a read failed', async () => {
    const ann = await newUserInRoom(browser, service, { roomId: 'stations01', name: 'Ann', view: VIEW });
    const { page } = ann;
    await page.getByRole('tab', { name: 'Layers' }).click();
    await page.getByText('Add a layer from an address').click();
    const form = page.getByRole('form', { name: 'Add a layer from an address' });
    await form.getByLabel('Address').fill(`${origin}/stations.geojson`);
    await form.getByLabel('Name').fill('Stations');
    await form.getByLabel('Read again').selectOption({ label: 'every hour' });
    await form.getByRole('button', { name: 'Add the layer' }).click();
    const item = page.getByTestId('layer').filter({ hasText: 'Stations' });
    await item.getByText(`From ${new URL(origin).host}`).waitFor();
    await item.getByText('1 Point feature').waitFor();
    await page.getByText('Style').first().click();
    await shoot(page, 'remote-layer', item);

    answer = { type: 'FeatureCollection', features: [point('Bern', 7.44), point('Thun', 7.63)] };
    await item.getByRole('button', { name: 'Read again now' }).click();
    await page.getByText('Read again: 1 added, 0 changed, 0 removed').waitFor();
    await item.getByText('2 Point features').waitFor();

    answer = 503;
    await item.getByRole('button', { name: 'Read again now' }).click();
    await item
      .getByRole('alert')
      .filter({ hasText: /The last read failed: .*503/ })
      .waitFor();
    await item.getByText('2 Point features').waitFor();
    const { body } = await ann.call('GET', '/api/layers/stations01', undefined, ann.token);
    const [layer] = body.layers as { source: { refreshMinutes: number; lastError: string } }[];
    assert.equal(layer!.source.refreshMinutes, 60);
    assert.match(layer!.source.lastError, /503/);
    assert.deepEqual(ann.errors, []);
  });
});
