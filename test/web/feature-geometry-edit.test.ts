import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { TEST_DB } from '../helpers.js';
import { launchBrowser, type RunningService, startService, until } from '../support/browser.js';
import { mailedToken, newUserInRoom, shoot } from '../support/web-accounts.js';

// Editing a layer's features in the web application, in Debian's Chromium against the real
// service: an editor moves a point and a line's vertex, deletes a vertex, adds a feature and
// deletes it, edits a cell of the attribute table and undoes it; a viewer sees none of it. Once,
// with SQLite, like the other browser tests.
const skip = TEST_DB !== 'sqlite' && 'the browser tests run once, with the SQLite suite';

const VIEW = { lng: 7.4474, lat: 46.948, zoom: 16 };
const ROOM = 'geomedit-1';

/** The longitude and latitude `dx`, `dy` pixels from the view's centre (web mercator, 512 px tiles). */
function at(dx: number, dy: number): [number, number] {
  const size = 512 * 2 ** VIEW.zoom;
  const y0 = ((1 - Math.log(Math.tan(Math.PI / 4 + (VIEW.lat * Math.PI) / 360)) / Math.PI) / 2) * size;
  const lng = VIEW.lng + (dx / size) * 360;
  const lat = (360 / Math.PI) * Math.atan(Math.exp(Math.PI * (1 - (2 * (y0 + dy)) / size))) - 90;
  return [lng, lat];
}

/** Reads until `done`, failing the test when it never is (`until` answers the last value read). */
async function reach<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const value = await until(read, done);
  assert.ok(done(value), `not reached: ${JSON.stringify(value)}`);
  return value;
}

type Stored = { id: number; geometry: { type: string; coordinates: unknown }; properties: Record<string, unknown> };

describe('editing the features of a layer in the page', { skip }, () => {
  let service: RunningService;
  let browser: Browser;
  let ann: Awaited<ReturnType<typeof newUserInRoom>>;
  let wells = '';
  let paths = '';
  let wellId = 0;
  let pathId = 0;

  /** A layer's features as the API reads them now. */
  const stored = async (layerId: string) => {
    const { body } = await ann.call('GET', `/api/layers/${layerId}/features`, undefined, ann.token);
    return body.features as Stored[];
  };
  const mapBox = async (page: Page) => (await page.getByTestId('map').boundingBox())!;
  /** The page's point `dx`, `dy` pixels from the map's centre. */
  const point = async (page: Page, dx: number, dy: number) => {
    const box = await mapBox(page);
    return { x: box.x + box.width / 2 + dx, y: box.y + box.height / 2 + dy };
  };
  /** Clicks there until the inspector shows that feature (its tiles may still be on their way). */
  /** Clicks the feature `id` of the layer `layerName` until the inspector shows it (both layers have a feature 1). */
  const select = async (page: Page, dx: number, dy: number, id: number, layerName: string) => {
    const { x, y } = await point(page, dx, dy);
    const attributes = page.getByRole('region', { name: 'Feature attributes' });
    const shown = (locator: Locator) =>
      locator
        .waitFor({ timeout: 2000 })
        .then(() => true)
        .catch(() => false);
    await reach(
      async () => {
        await page.mouse.click(x, y);
        return (
          (await shown(page.getByRole('heading', { name: layerName, exact: true, level: 2 }))) &&
          (await shown(attributes.getByRole('heading', { name: `Feature ${id}` })))
        );
      },
      (shown) => shown,
    );
    return attributes;
  };
  const drag = async (page: Page, from: [number, number], to: [number, number]) => {
    const a = await point(page, ...from);
    const b = await point(page, ...to);
    await page.mouse.move(a.x, a.y);
    await page.mouse.down();
    await page.mouse.move(b.x, b.y, { steps: 8 });
    await page.mouse.up();
  };

  before(async () => {
    service = await startService();
    browser = await launchBrowser();
    ann = await newUserInRoom(browser, service, { roomId: ROOM, name: 'Ann', view: VIEW });
    const layer = async (name: string, geometryType: string, fields: unknown[]) => {
      const made = await ann.call('POST', `/api/rooms/${ROOM}/layers`, { name, geometryType, fields }, ann.token);
      assert.equal(made.status, 200, JSON.stringify(made.body));
      return (made.body.layer as { id: string }).id;
    };
    const feature = async (layerId: string, geometry: unknown, properties: Record<string, unknown>) => {
      const made = await ann.call(
        'POST',
        `/api/layers/${layerId}/features`,
        { type: 'Feature', geometry, properties },
        ann.token,
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.id as number;
    };
    wells = await layer('Wells', 'Point', [
      { name: 'name', type: 'text' },
      { name: 'kind', type: 'choice', choices: ['well', 'spring'] },
      { name: 'depth', type: 'real' },
    ]);
    paths = await layer('Paths', 'LineString', []);
    wellId = await feature(wells, { type: 'Point', coordinates: at(0, 0) }, { name: 'North well', depth: 2 });
    pathId = await feature(
      paths,
      { type: 'LineString', coordinates: [at(-100, -120), at(0, -120), at(100, -120)] },
      {},
    );
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('an editor moves a point, drags a vertex of a line and deletes one; each is stored', async () => {
    const { page } = ann;
    const attributes = await select(page, 0, 0, wellId, 'Wells');
    await attributes.getByRole('button', { name: 'Edit shape' }).click();
    const shape = page.getByRole('group', { name: "Edit the feature's shape" });
    /** The shape is in the editor (its effect ran: it takes the map's presses). */
    const editing = () => page.locator('.feature-shape[data-ready=true]').waitFor();
    await editing();
    await shape.getByText('Drag the point to move it').waitFor();
    await drag(page, [0, 0], [60, 40]);
    await shoot(page, 'feature-shape-point', shape);
    await shape.getByRole('button', { name: 'Save shape' }).click();
    const [lng, lat] = at(60, 40);
    await reach(
      async () => (await stored(wells)).find((f) => f.id === wellId)!.geometry.coordinates as number[],
      ([x, y]) => Math.abs(x! - lng) < 2e-5 && Math.abs(y! - lat) < 2e-5,
    );

    const line = await select(page, -50, -120, pathId, 'Paths');
    await line.getByRole('button', { name: 'Edit shape' }).click();
    await editing();
    await drag(page, [0, -120], [0, -180]);
    await shape.getByRole('button', { name: 'Save shape' }).click();
    const coordinatesOf = async () =>
      (await stored(paths)).find((f) => f.id === pathId)!.geometry.coordinates as number[][];
    await reach(coordinatesOf, (c) => Math.abs(c[1]![1]! - at(0, -180)[1]) < 2e-5);

    await line.getByRole('button', { name: 'Edit shape' }).click();
    await editing();
    const end = await point(page, 100, -120);
    await page.mouse.click(end.x, end.y);
    await page.keyboard.press('Delete');
    await shape.getByText('Vertex deleted.').waitFor();
    await shoot(page, 'feature-shape-line', shape);
    await shape.getByRole('button', { name: 'Save shape' }).click();
    await reach(coordinatesOf, (c) => c.length === 2);
    assert.deepEqual(ann.errors, []);
  });

  test('an editor adds a feature of the layer, deletes it, and brings it back with Undo', async () => {
    const { page } = ann;
    const attributes = await select(page, 60, 40, wellId, 'Wells');
    await page.getByRole('group', { name: 'Add a feature' }).getByRole('button', { name: 'Add point' }).click();
    const there = await point(page, -150, 100);
    await page.mouse.click(there.x, there.y);
    const added = await reach(
      () => stored(wells),
      (features) => features.length === 2,
    );
    const newId = added.find((f) => f.id !== wellId)!.id;
    await attributes.getByRole('heading', { name: `Feature ${newId}` }).waitFor();
    await attributes.getByRole('button', { name: 'Delete feature' }).click();
    await reach(
      () => stored(wells),
      (features) => features.length === 1,
    );
    // The notice's Undo (the time bar has one too, for the person's last change).
    await page.getByText(`Deleted feature ${newId}`).waitFor();
    await page.getByRole('button', { name: 'Undo', exact: true }).last().click();
    await reach(
      () => stored(wells),
      (features) => features.some((f) => f.id === newId),
    );
    assert.deepEqual(ann.errors, []);
  });

  test("an editor edits the attribute table's cells (a number, a choice), and undoes the last", async () => {
    const { page } = ann;
    await page.getByRole('tab', { name: 'Layers' }).click();
    const item = page.getByTestId('layer-list').locator('li', { hasText: 'Wells' });
    await item.getByRole('button', { name: 'Table' }).click();
    const table = page.getByRole('region', { name: 'Attribute table of Wells' });
    await table.getByRole('button', { name: `depth of feature ${wellId}: 2 (edit)` }).click();
    const depth = table.getByRole('form', { name: `Edit depth of feature ${wellId}` });
    assert.equal(await depth.getByLabel('depth').getAttribute('type'), 'number');
    await depth.getByLabel('depth').fill('7.5');
    await depth.getByLabel('depth').press('Enter');
    await table.getByRole('button', { name: `depth of feature ${wellId}: 7.5 (edit)` }).waitFor();
    await table.getByRole('button', { name: `kind of feature ${wellId}:  (edit)` }).click();
    const kind = table.getByRole('form', { name: `Edit kind of feature ${wellId}` });
    await kind.getByLabel('kind').selectOption('spring');
    await shoot(page, 'feature-table-cell', table);
    await kind.getByRole('button', { name: 'Save' }).click();
    await reach(
      async () => (await stored(wells)).find((f) => f.id === wellId)!.properties,
      (p) => p.depth === 7.5 && p.kind === 'spring',
    );
    await page.locator('.undo-buttons').getByRole('button', { name: 'Undo' }).click();
    await reach(
      async () => (await stored(wells)).find((f) => f.id === wellId)!.properties,
      (p) => p.depth === 7.5 && p.kind === undefined,
    );
    assert.deepEqual(ann.errors, []);
  });

  test('a viewer sees no edit controls, and who edits a feature', async () => {
    const email = `vic-${Date.now()}@example.com`;
    const signup = await ann.call('POST', '/api/auth/signup', { email, password: 'a-long-password', name: 'Vic' });
    // A member is added once their address is confirmed (the link is in the service's log: no SMTP).
    const verify = await mailedToken(service, email, 'Confirm your e-mail address', '/verify-email');
    assert.equal((await ann.call('POST', '/api/auth/verify-email', { token: verify })).status, 200);
    const invited = await ann.call('POST', `/api/rooms/${ROOM}/invite`, { email, role: 'viewer' }, ann.token);
    assert.equal(invited.body.status, 'added', JSON.stringify(invited.body));
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.addInitScript((s) => localStorage.setItem('maproom.session', s), JSON.stringify(signup.body));
    const page = await context.newPage();
    await page.goto(`${service.url}/r/${ROOM}`);
    await page.locator('[data-testid=map][data-ready=true]').waitFor({ timeout: 30_000 });
    const attributes = await select(page, 60, 40, wellId, 'Wells');
    await attributes.getByRole('row', { name: /depth/ }).waitFor();
    for (const name of ['Edit shape', 'Delete feature', 'Edit attributes', 'Add point'])
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);

    // Presence: while Ann edits the feature, Vic's inspector names her; when she stops, no more.
    await ann.page.getByRole('button', { name: 'Close the table' }).click();
    const hers = await select(ann.page, 60, 40, wellId, 'Wells');
    await hers.getByRole('button', { name: 'Edit shape' }).click();
    await attributes.getByText('Editing this feature now: Ann').waitFor();
    await shoot(page, 'feature-presence', attributes);
    await ann.page.keyboard.press('Escape');
    await attributes.getByTestId('feature-editors').waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Layers' }).click();
    await page
      .getByTestId('layer-list')
      .locator('li', { hasText: 'Wells' })
      .getByRole('button', { name: 'Table' })
      .click();
    const table = page.getByRole('region', { name: 'Attribute table of Wells' });
    await table.getByRole('cell', { name: '7.5' }).waitFor();
    assert.equal(await table.locator('button.cell').count(), 0);
    await context.close();
  });
});
