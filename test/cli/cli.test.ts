/**
 * The `maproom` command line, run as a process against a listening service: every command,
 * its output (tables and --json), exit codes 0/1/2, the stored login, and the service's own
 * refusals. Uploads, export and live changes are in cli/files.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertOk, call, issueToken, PASSWORD, TOKEN_ERRORS, type TestApp, type TestUser } from '../helpers.js';
import { type CliOptions, type CliWorld, cliRoomId, cliWorld, runCli } from '../support/cli.js';

let t: TestApp;
let owner: TestUser;
let url: string;
let home: string;
let world: CliWorld;
const roomId = cliRoomId();

const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(args, { url, configHome: home, ...options });

before(async () => {
  world = await cliWorld();
  ({ t, owner, url, home } = world);
});

after(async () => {
  await world?.close();
});

describe('usage', () => {
  test('--help lists every command and exits 0', async () => {
    const run = await cli(['--help']);
    assert.equal(run.code, 0);
    for (const command of [
      'login',
      'logout',
      'rooms',
      'room',
      'token',
      'upload',
      'markers',
      'export',
      'import',
      'clone',
      'watch',
    ])
      assert.match(run.stdout, new RegExp(`\\n  ${command}\\b`), command);
    for (const nested of [
      ['room', 'create'],
      ['token', 'create'],
      ['markers', 'import'],
      ['markers', 'export'],
    ]) {
      const help = await cli([...nested, '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`Usage: maproom ${nested.join(' ')}`));
    }
  });

  test('wrong usage exits 2 without calling the service', async () => {
    for (const args of [
      ['bogus'],
      [],
      ['room', 'create'],
      ['upload', roomId, 'x.geojson', '--style', 'not json'],
      ['upload', roomId, 'x.geojson', '--as', 'points'],
      ['token', 'create', roomId, '--days', 'soon'],
      ['markers', 'export', roomId, '--format', 'kml'],
    ]) {
      const run = await cli(args, { url: 'http://127.0.0.1:9' });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
    }
  });

  test('a service that cannot be reached exits 1 saying so', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const run = await cli(['rooms'], { url: `http://127.0.0.1:${port}` });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^maproom: Cannot reach the service: ECONNREFUSED/);
  });
});

describe('login, rooms, tokens, logout', () => {
  const credentials = () => path.join(home, 'maproom', 'credentials.json');

  test('a wrong password exits 1 with the service message and stores nothing', async () => {
    const run = await cli(['login'], { input: `${owner.email}\nwrong password\n` });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^maproom: .*(password|credentials)/i);
    assert.equal(existsSync(credentials()), false);
  });

  test('login reads e-mail and password from standard input and keeps the session private', async () => {
    const run = await cli(['login'], { input: `${owner.email}\n${PASSWORD}\n` });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `Logged in to ${url} as ${owner.email}\n`);
    assert.equal(statSync(credentials()).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(credentials())).mode & 0o777, 0o700);
    const stored = JSON.parse(readFileSync(credentials(), 'utf8'));
    assert.equal(stored.url, url);
    const me = await call(t.app, 'GET', '/api/auth/me', { auth: stored.token });
    assert.equal(me.json().user.email, owner.email);
    assert.ok(!run.stdout.includes(stored.token) && !run.stderr.includes(stored.token));
  });

  test('room create and rooms use the stored login; --json gives the answers', async () => {
    const created = await cli(['room', 'create', roomId, '--name', 'Field survey']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, `Created room ${roomId}\n`);
    const again = await cli(['--json', 'room', 'create', roomId]);
    assert.equal(JSON.parse(again.stdout).isNewRoom, false);
    const table = await cli(['rooms']);
    assert.match(table.stdout, /^ROOM\s+NAME\s+ROLE\s+PUBLIC\s+CREATED\n/);
    assert.match(table.stdout, new RegExp(`\\n${roomId}\\s+Field survey\\s+owner\\s+no\\s`));
    const json = JSON.parse((await cli(['rooms', '--json'])).stdout);
    assert.deepEqual(
      json.map((r: { roomId: string; name: string }) => [r.roomId, r.name]),
      [[roomId, 'Field survey']],
    );
  });

  test('the stored session is not sent to another service', async () => {
    const other = url.replace('127.0.0.1', 'localhost');
    const run = await cli(['rooms'], { url: other });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^maproom: /);
    assert.doesNotMatch(run.stderr, /Cannot reach/);
  });

  test('token create prints the secret once, alone on standard output; the token works', async () => {
    const run = await cli(['token', 'create', roomId, '--permissions', 'read,write', '--days', '7']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^mrt_[A-Za-z0-9_-]{43}\n$/);
    assert.match(run.stderr, /\(read, write\), expires in 7 days/);
    const room = await call(t.app, 'GET', `/api/rooms/${roomId}`, { auth: run.stdout.trim() });
    assert.equal(room.statusCode, 200);
    const json = JSON.parse((await cli(['--json', 'token', 'create', roomId])).stdout);
    assert.match(json.token, /^mrt_/);
    assert.deepEqual(json.permissions, ['read']);
    assert.equal(json.expiresInDays, 30);
  });

  test('the service refusals exit 1 with its message: a bad token, a token lacking a permission, a bad value', async () => {
    const bad = await cli(['layers', roomId], { token: 'mrt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, `maproom: ${TOKEN_ERRORS.invalid}\n`);
    const badJson = await cli(['--json', 'layers', roomId], {
      token: 'mrt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    assert.deepEqual(JSON.parse(badJson.stderr), { status: 401, error: 'unauthorized', message: TOKEN_ERRORS.invalid });
    const { token } = await issueToken(t.app, owner, roomId, ['read']);
    const lacking = await cli(['markers', 'import', roomId, writePoints()], { token });
    assert.equal(lacking.code, 1);
    assert.equal(lacking.stderr, `maproom: ${TOKEN_ERRORS.lacksWrite}\n`);
    const refused = await cli(['token', 'create', roomId, '--permissions', 'read,fly']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^maproom: .*permissions/);
  });

  test('logout ends the session on the service and forgets it', async () => {
    const { token } = JSON.parse(readFileSync(credentials(), 'utf8'));
    const run = await cli(['logout']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `Logged out of ${url}\n`);
    assert.equal(existsSync(credentials()), false);
    assert.equal((await call(t.app, 'GET', '/api/auth/me', { auth: token })).statusCode, 401);
    assert.equal((await cli(['logout'])).stdout, 'Not logged in\n');
    const anonymous = await cli(['rooms']);
    assert.equal(anonymous.code, 1);
    assert.match(
      anonymous.stderr,
      /^maproom: .+ \(no credential was sent: maproom login, --token or MAPROOM_TOKEN\)\n$/,
    );
  });
});

describe('markers import and export', () => {
  let token: string;
  before(async () => {
    ({ token } = await issueToken(t.app, owner, roomId, ['read', 'write']));
  });

  test('imports a GeoJSON and a CSV, then exports them as GeoJSON and CSV', async () => {
    const geojson = await cli(['markers', 'import', roomId, writePoints()], { token });
    assert.equal(geojson.code, 0, geojson.stderr);
    assert.equal(geojson.stdout, 'Imported 2 markers\n');
    const csvFile = path.join(home, 'sites.csv');
    writeFileSync(csvFile, 'Name,title,LAT,lon,tags,eventDate\nx,Basel,47.56,7.59,old;river,2026-05-01\n');
    const csv = await cli(['--json', 'markers', 'import', roomId, csvFile], { token });
    assert.equal(csv.code, 0, csv.stderr);
    assert.equal(JSON.parse(csv.stdout).markersCreated, 1);

    const exported = await cli(['markers', 'export', roomId], { token });
    const collection = JSON.parse(exported.stdout);
    const basel = collection.features.find((f: any) => f.properties.title === 'Basel');
    assert.deepEqual(basel.geometry, { type: 'Point', coordinates: [7.59, 47.56] });
    assert.deepEqual(basel.properties.tags, ['old', 'river']);
    assert.equal(basel.properties.eventDate, Date.parse('2026-05-01'));
    assert.deepEqual(collection.features.map((f: any) => f.properties.title).sort(), ['Basel', 'Bern', 'Zurich']);

    const file = path.join(home, 'out.csv');
    const written = await cli(['markers', 'export', roomId, '-o', file], { token });
    assert.equal(written.stdout, `Wrote 3 markers to ${file}\n`);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    assert.match(lines[0]!, /^id,latitude,longitude,title,description,color,tags,eventDate,/);
    assert.ok(
      lines.some(
        (l) => l.includes(',47.56,7.59,Basel,,') && l.includes('"[""old"",""river""]",2026-05-01T00:00:00.000Z'),
      ),
    );

    // The CSV export reads back into another room as the same markers.
    const copy = cliRoomId();
    await call(t.app, 'POST', `/api/rooms/${copy}`, { auth: owner.token, body: {} });
    const copyToken = (await issueToken(t.app, owner, copy, ['read', 'write'])).token;
    assert.equal((await cli(['markers', 'import', copy, file], { token: copyToken })).stdout, 'Imported 3 markers\n');
    const again = JSON.parse((await cli(['markers', 'export', copy], { token: copyToken })).stdout);
    const strip = (f: any) => [f.geometry.coordinates, f.properties.title, f.properties.tags, f.properties.eventDate];
    assert.deepEqual(again.features.map(strip).sort(), collection.features.map(strip).sort());
  });

  test('an invalid point fails the job with its message, exit 1', async () => {
    const file = path.join(home, 'bad.csv');
    writeFileSync(file, 'lat,lon,title\n95,7,Nowhere\n');
    const run = await cli(['markers', 'import', roomId, file], { token });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^maproom: .*Feature 1/m);
  });
});

describe('text from the service', () => {
  test('control characters in names reach the terminal escaped, not obeyed; --json keeps their value', async () => {
    // A member names a room: set the window title, write the clipboard (OSC 52), clear the screen, C1 CSI, RLO.
    const name = 'Evil\u001b]0;owned\u0007\u001b]52;c;cHduZWQ=\u0007\u001b[2J\u009b31m\u202eend';
    const evil = cliRoomId();
    assertOk(await call(t.app, 'POST', `/api/rooms/${evil}`, { auth: owner.token, body: { name } }));
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const table = await cli(['rooms'], { token: owner.token });
    assert.equal(table.code, 0, table.stderr);
    assert.doesNotMatch(table.stdout, controls);
    assert.match(table.stdout, new RegExp(`\\n${evil}\\s+Evil\\\\u001b\\]0;owned\\\\u0007`));
    const json = await cli(['--json', 'rooms'], { token: owner.token });
    assert.doesNotMatch(json.stdout, controls);
    assert.equal(JSON.parse(json.stdout).find((r: { roomId: string }) => r.roomId === evil).name, name);
  });
});

/** A GeoJSON file of two points, written in the config directory. */
function writePoints(): string {
  const file = path.join(home, 'points.geojson');
  const point = (lon: number, lat: number, title: string) => ({
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [lon, lat] },
    properties: { title },
  });
  writeFileSync(
    file,
    JSON.stringify({
      type: 'FeatureCollection',
      features: [point(7.447, 46.948, 'Bern'), point(8.54, 47.37, 'Zurich')],
    }),
  );
  return file;
}
