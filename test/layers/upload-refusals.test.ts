/**
 * `POST /api/layers/upload` treats every file as hostile: junk under a shapefile's name, junk
 * in a zip, a zip bomb, a zip that lies about its sizes, a zipped VRT pointing at /etc/passwd,
 * a GeoPackage without feature tables, coordinates out of range, projected coordinates without
 * a CRS, formats it does not take, truncated files and truncated multipart bodies. Each is
 * refused with the documented error and GDAL's reason, and nothing is stored: no layer, no
 * marker, no file, no job, no history, the room's counts and the owner's quota as they were.
 * Contract: docs/contract-decisions.md ("Vector layers in detail": refusals), docs/decisions.md (Uploads).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  labelled,
  multipart,
  roomCounts,
  scaffold,
  type TestApp,
  type Users,
} from '../helpers.js';
import { features, storedState, tmpLeftovers, TWO_SQUARES, uploadBytes, uploadFile } from '../support/layers.js';
import { makeVectorFixtures } from '../vector-fixtures.js';

let t: TestApp;
let users: Users;
let room: string;
let fixtures: ReturnType<typeof makeVectorFixtures>;

before(async () => {
  fixtures = makeVectorFixtures();
  ({ t, users, room } = await scaffold());
});
after(async () => {
  await t?.close();
  fixtures?.remove();
});

/** What must be as it was after a refusal: everything stored, and the room's counts. */
async function snapshot() {
  return { stored: await storedState(t, room), counts: await roomCounts(t.app, room, users.owner.token) };
}

/** No answer may show a path of the service's, or what a file pointed at. */
function assertNothingInternal(body: string, label: string) {
  for (const secret of [t.config.dataDir, '/tmp/', 'root:x:0:0', '/etc/passwd', 'blobs/']) {
    assert.ok(!body.includes(secret), `${label}: the answer shows ${secret}: ${body}`);
  }
}

const ACCEPTED = ['GeoJSON', 'shapefile', 'GeoPackage', 'CSV', 'KML', 'GPX', 'FlatGeobuf'];

describe('hostile and unreadable files are refused with the documented error', () => {
  // [what, fixture, status, code, words the message must hold]
  const cases: [string, string, number, string, RegExp?][] = [
    ['junk named .shp (a shapefile part alone)', 'junk.shp', 415, 'unsupported_format', /\.zip/],
    ['junk .shp/.shx/.dbf in a zip', 'junk_shp.zip', 400, 'invalid_file', /GDAL cannot read junk_shp\.zip\/junk\.shp/],
    ['a zip bomb (200 MB of zeros in a 200 KB zip)', 'bomb.zip', 400, 'invalid_zip', /20 times/],
    ['a zip whose member lies about its size', 'lying_sizes.zip', 400, 'invalid_zip', /lv95\.dbf/],
    ['a zipped VRT pointing at /etc/passwd', 'vrt_only.zip', 400, 'invalid_zip', /no shapefile/],
    ['a VRT named .shp in a zip', 'vrt_as_shp.zip', 400, 'invalid_file', /passwd\.shp/],
    ['a zip without a .shp', 'no_shp.zip', 400, 'invalid_zip', /no shapefile/],
    [
      'a GeoPackage without feature tables',
      'no_features.gpkg',
      400,
      'no_feature_tables',
      /GeoPackage holds no feature table/,
    ],
    ['GeoJSON with a latitude of 95', 'out_of_range.geojson', 400, 'invalid_file', /out of range.*feature 2/],
    ['GeoJSON in projected metres without a CRS', 'projected.geojson', 400, 'unknown_crs', /projected/],
    ['a shapefile in metres without its .prj', 'no_prj_projected.zip', 400, 'unknown_crs', /\.prj/],
    ['truncated GeoJSON', 'truncated.geojson', 400, 'invalid_file', /GDAL cannot read truncated\.geojson/],
    ['an SQLite database that is not a GeoPackage', 'plain.sqlite', 415, 'unsupported_format', /not a GeoPackage/],
    ['XML that is neither KML nor GPX (an SVG)', 'drawing.svg', 415, 'unsupported_format', /neither KML nor GPX/],
    ['a CSV row without valid coordinates', 'bad_coordinates.csv', 400, 'invalid_file', /row 2/],
    ['a CSV latitude of 95.5 (not longitude/latitude, no CRS)', 'out_of_range.csv', 400, 'unknown_crs', /row 2/],
    ['a CSV in projected metres', 'projected.csv', 400, 'unknown_crs', /coordinate reference system/],
    ['a CSV without coordinate columns', 'no_coordinates.csv', 400, 'no_feature_tables', /latitude/],
  ];

  test('each refusal has its status, code and reason; nothing is stored, no path is shown', async () => {
    const before = await snapshot();
    for (const [what, fixture, status, code, reason] of cases) {
      const res = await uploadFile(t.app, room, fixtures.file(fixture), users.owner.token);
      labelled(what, () => {
        const body = assertError(res, status, code);
        if (reason) assert.match(body.message, reason);
        if (status === 415)
          for (const format of ACCEPTED)
            assert.ok(body.message.includes(format), `415 names ${format}: ${body.message}`);
        assertNothingInternal(res.body, what);
      });
    }
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });

  test('an empty file, and GeoJSON that is not an object, are 400 invalid_file', async () => {
    const before = await snapshot();
    assertError(await uploadBytes(t.app, room, '', 'empty.geojson', users.owner.token), 400, 'invalid_file');
    assertError(await uploadBytes(t.app, room, '[1, 2, 3]', 'list.geojson', users.owner.token), 400, 'invalid_file');
    assertError(
      await uploadBytes(t.app, room, '{"type": "Feature"', 'cut.json', users.owner.token),
      400,
      'invalid_file',
    );
    assertError(
      await uploadBytes(t.app, room, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), 'image.png', users.owner.token),
      415,
      'unsupported_format',
    );
    assert.deepEqual(await snapshot(), before);
  });

  test('a shapefile without a .prj whose coordinates fit longitude/latitude is taken as WGS84', async () => {
    const body = assertOk(await uploadFile(t.app, room, fixtures.file('no_prj_lonlat.zip'), users.owner.token));
    assert.equal(body.layer.sourceCrs, 'EPSG:4326');
    assert.deepEqual(
      body.layer.bbox.map((v: number) => Math.round(v * 1000) / 1000),
      [7.439, 46.949, 7.441, 46.951],
    );
    assert.equal((await features(t.app, body.layer.id, users.owner.token)).features.length, 1);
  });
});

describe('bodies the upload route cannot use', () => {
  test('a multipart body cut before its closing boundary is 400 invalid_body, and nothing is left', async () => {
    const before = await snapshot();
    const { payload, headers } = await multipart({
      roomName: room,
      file: { data: '{"type":"FeatureCollection","features":[]}', filename: 'a.geojson' },
    });
    for (const cut of [
      payload.subarray(0, payload.length - 10),
      payload.subarray(0, Math.floor(payload.length * 0.8)),
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/layers/upload',
        headers: { ...headers, authorization: `Bearer ${users.owner.token}` },
        payload: cut,
      });
      assertError(res as never, 400, 'invalid_body');
    }
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });

  test('a multipart body without a boundary is 400; a JSON body is 415', async () => {
    const auth = `Bearer ${users.owner.token}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/layers/upload',
      headers: { 'content-type': 'multipart/form-data', authorization: auth },
      payload: 'x',
    });
    assertError(res as never, 400, 'invalid_body');
    const json = await t.app.inject({
      method: 'POST',
      url: '/api/layers/upload',
      headers: { authorization: auth },
      payload: { roomName: room },
    });
    assertError(json as never, 415, 'unsupported_media_type');
  });

  test('the file part and the room are required; an unknown part is refused', async () => {
    const before = await snapshot();
    const post = (parts: Record<string, unknown>) =>
      multipart(parts as never).then(({ payload, headers }) =>
        t.app.inject({
          method: 'POST',
          url: '/api/layers/upload',
          headers: { ...headers, authorization: `Bearer ${users.owner.token}` },
          payload,
        }),
      );
    assertFieldError((await post({ roomName: room })) as never, 'file');
    assertFieldError((await post({ file: { data: '{}', filename: 'a.geojson' } })) as never, 'roomName');
    assertFieldError(
      (await post({ roomName: 'short', file: { data: '{}', filename: 'a.geojson' } })) as never,
      'roomName',
    );
    assertError(
      (await post({ roomName: room, colour: 'red', file: { data: '{}', filename: 'a.geojson' } })) as never,
      400,
      'validation_error',
    );
    assert.deepEqual(await snapshot(), before);
  });

  test('a file over 50 MB in one request is 413 file_too_large, and nothing is kept', async () => {
    const before = await snapshot();
    const res = await uploadBytes(
      t.app,
      room,
      Buffer.alloc(50 * 1024 * 1024 + 1024, 0x20),
      'big.geojson',
      users.owner.token,
    );
    assertError(res, 413, 'file_too_large');
    assert.deepEqual(await snapshot(), before);
    assert.deepEqual(await tmpLeftovers(t), []);
  });
});

describe('quota', () => {
  test("a layer's bytes count against the owner's quota: the next upload that does not fit is 413 quota_exceeded", async () => {
    const quota = 400_000;
    const small = await scaffold({ users: ['owner', 'editor', 'viewer'], config: { storageQuotaBytes: quota } });
    try {
      const { t: app, users: people, room: roomId } = small;
      const { layer } = assertOk(await uploadFile(app.app, roomId, fixtures.file('lv95.zip'), people.owner.token));
      assert.ok(layer.sizeBytes > 0 && layer.sizeBytes < quota / 2, `sizeBytes ${layer.sizeBytes}`);
      assert.equal((await storedState(app, roomId)).quotaBytes, layer.sizeBytes);
      // A file that would fit in an empty quota, but not beside the layer.
      const padded = (bytes: number) => {
        const text = JSON.stringify(TWO_SQUARES);
        return `${text.slice(0, -1) + ' '.repeat(bytes - text.length)}}`;
      };
      const tooBig = padded(quota - layer.sizeBytes + 1000);
      const before = await storedState(app, roomId);
      assertError(
        await uploadBytes(app.app, roomId, tooBig, 'padded.geojson', people.owner.token),
        413,
        'quota_exceeded',
      );
      assert.deepEqual(await storedState(app, roomId), before);
      // Once the layer is deleted, its bytes are free again.
      assertOk(await call(app.app, 'DELETE', `/api/layers/${layer.id}`, { auth: people.owner.token }));
      assert.equal((await storedState(app, roomId)).quotaBytes, 0);
      assertOk(await uploadBytes(app.app, roomId, tooBig, 'padded.geojson', people.owner.token));
    } finally {
      await small.t.close();
    }
  });
});

describe('quota after ingest', () => {
  test('the stored tables count, not the file: a small file whose tables outgrow the quota is 413 and nothing stays', async () => {
    // TWO_SQUARES is under 1 KB as GeoJSON; its feature table and spatial index take pages of several KB.
    const small = await scaffold({ users: ['owner', 'editor', 'viewer'], config: { storageQuotaBytes: 6_000 } });
    try {
      const { t: app, users: people, room: roomId } = small;
      const before = await storedState(app, roomId);
      const res = await uploadBytes(
        app.app,
        roomId,
        JSON.stringify(TWO_SQUARES),
        'squares.geojson',
        people.owner.token,
      );
      assertError(res, 413, 'quota_exceeded');
      assert.deepEqual(await storedState(app, roomId), before, 'no layer, no table, no file');
      const inline = await call(app.app, 'POST', `/api/rooms/${roomId}/layers`, {
        auth: people.owner.token,
        body: { name: 'Inline', geojson: TWO_SQUARES },
      });
      assertError(inline, 413, 'quota_exceeded');
      assert.deepEqual(await storedState(app, roomId), before);
    } finally {
      await small.t.close();
    }
  });
});

describe('GDAL reaches no network', () => {
  test('a GeoJSON whose crs links to a URL: GDAL never requests it, by upload or inline', async () => {
    const requests: string[] = [];
    const wkt =
      'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]';
    const server = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end(wkt);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const href = `http://127.0.0.1:${(server.address() as AddressInfo).port}/crs.wkt`;
      const linked = { ...TWO_SQUARES, crs: { type: 'link', properties: { href, type: 'ogcwkt' } } };
      const uploaded = await uploadBytes(t.app, room, JSON.stringify(linked), 'linked.geojson', users.owner.token);
      const inline = await call(t.app, 'POST', `/api/rooms/${room}/layers`, {
        auth: users.owner.token,
        body: { name: 'Linked', geojson: linked },
      });
      // Whatever the answers (the link is ignored, or the CRS is unknown), nothing was fetched.
      for (const res of [uploaded, inline]) assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
      assert.deepEqual(requests, [], 'GDAL requested the linked URL');
    } finally {
      server.close();
    }
  });
});
