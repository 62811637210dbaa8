/**
 * Drawn shapes over HTTP: create (Point, LineString, Polygon with a hole), geometry, style
 * and label validation, list, PATCH, DELETE, access, history, counts and clear.
 * Contract: docs/contract-decisions.md ("Drawings, presentation, history, live changes"; Rooms) and
 * docs/decisions.md (Drawings).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  assertFieldError,
  assertOk,
  call,
  createRoom,
  createRoomWithMembers,
  issueToken,
  labelled,
  roomCounts,
  roomHistory,
  scaffoldSuite,
  TOKEN_ERRORS,
} from '../helpers.js';

const DRAWING_KEYS = ['createdAt', 'createdBy', 'geometry', 'id', 'label', 'style', 'updatedAt'];

const s = scaffoldSuite({ rooms: [] });

const newRoom = (body: object = {}) => createRoomWithMembers(s.t.app, s.users, body);
const drawingsUrl = (roomId: string) => `/api/rooms/${roomId}/drawings`;
const drawingUrl = (roomId: string, drawingId: string) => `/api/rooms/${roomId}/drawings/${drawingId}`;
const postDrawing = (roomId: string, body: unknown, auth?: string) =>
  call(s.t.app, 'POST', drawingsUrl(roomId), { auth, body });
const patchDrawing = (roomId: string, drawingId: string, body: unknown, auth?: string) =>
  call(s.t.app, 'PATCH', drawingUrl(roomId, drawingId), { auth, body });
const deleteDrawing = (roomId: string, drawingId: string, auth?: string) =>
  call(s.t.app, 'DELETE', drawingUrl(roomId, drawingId), { auth });

const POINT = { type: 'Point', coordinates: [7.45, 46.95] };
const LINE = {
  type: 'LineString',
  coordinates: [
    [7.4, 46.9],
    [7.5, 47.0],
    [7.6, 46.95],
  ],
};
const SQUARE = [
  [7.0, 46.0],
  [8.0, 46.0],
  [8.0, 47.0],
  [7.0, 47.0],
  [7.0, 46.0],
];
const HOLE = [
  [7.2, 46.2],
  [7.2, 46.4],
  [7.4, 46.4],
  [7.4, 46.2],
  [7.2, 46.2],
];
const POLYGON = { type: 'Polygon', coordinates: [SQUARE, HOLE] };

type Drawing = Record<string, any> & { id: string };

async function createDrawing(roomId: string, auth: string, body: Record<string, unknown> = {}): Promise<Drawing> {
  const json = assertOk(await postDrawing(roomId, { geometry: POINT, ...body }, auth), 201);
  assert.equal(json.success, true);
  return json.drawing;
}

async function list(roomId: string, auth = s.users.owner.token): Promise<Drawing[]> {
  const body = assertOk(await call(s.t.app, 'GET', drawingsUrl(roomId), { auth }));
  assert.deepEqual(Object.keys(body), ['drawings']);
  return body.drawings;
}

const find = async (roomId: string, drawingId: string) => (await list(roomId)).find((d) => d.id === drawingId);
const ids = (items: { id: string }[]) => items.map((i) => i.id).sort();

const history = (roomId: string) => roomHistory(s.t.app, roomId, s.users.owner.token);

const counts = (roomId: string) => roomCounts(s.t.app, roomId, s.users.owner.token);

describe('POST /api/rooms/:roomId/drawings', () => {
  test('201 with a Point, a LineString and a Polygon with a hole; the list shows the same', async () => {
    const roomId = await newRoom();
    const created: Drawing[] = [];
    for (const [geometry, label, style] of [
      [POINT, 'Station', { color: '#ff0000' }],
      [{ type: 'Point', coordinates: [-180, -90, 512.5] }, null, null],
      [LINE, 'Route', { color: '#00f', opacity: 0.5, strokeWeight: 3 }],
      [POLYGON, 'Park with a pond', { color: '#112233', fillColor: '#44556677', opacity: 1, strokeWeight: 0 }],
    ] as const) {
      const res = await postDrawing(
        roomId,
        { geometry, ...(label !== null && { label }), ...(style !== null && { style }) },
        s.users.owner.token,
      );
      const json = assertOk(res, 201);
      assert.deepEqual(Object.keys(json).sort(), ['drawing', 'success']);
      assert.equal(json.success, true);
      const drawing = json.drawing as Drawing;
      assert.deepEqual(Object.keys(drawing).sort(), DRAWING_KEYS);
      assert.match(drawing.id, /^drawing-.+/);
      assert.deepEqual(drawing.geometry, geometry);
      assert.equal(drawing.label, label);
      assert.deepEqual(drawing.style, style);
      assert.equal(drawing.createdBy, s.users.owner.id);
      assert.ok(Number.isInteger(drawing.createdAt) && drawing.createdAt > 0);
      assert.ok(Number.isInteger(drawing.updatedAt) && drawing.updatedAt >= drawing.createdAt);
      created.push(drawing);
    }
    assert.equal(new Set(created.map((d) => d.id)).size, 4);
    const listed = await list(roomId);
    assert.deepEqual(ids(listed), ids(created));
    for (const drawing of created)
      assert.deepEqual(
        listed.find((d) => d.id === drawing.id),
        drawing,
      );
  });

  test('an editor and a write token draw; createdBy names them', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    assert.equal((await createDrawing(roomId, s.users.editor.token)).createdBy, s.users.editor.id);
    const byToken = await createDrawing(roomId, token.token, { geometry: LINE });
    assert.deepEqual(
      Object.keys(byToken).sort(),
      ['geometry', 'id'],
      'a write-only token hears only the id and what it sent',
    );
    assert.equal((await find(roomId, byToken.id))!.createdBy, token.id);
    assert.equal((await list(roomId)).length, 2);
  });

  test('an invalid geometry is 400 validation_error whose message names the problem; nothing is stored', async () => {
    const roomId = await newRoom();
    const unclosed = [
      [7, 46],
      [8, 46],
      [8, 47],
      [7, 47],
    ];
    const cases: [string, unknown, RegExp][] = [
      ['unclosed ring', { type: 'Polygon', coordinates: [[...unclosed, [7.5, 47.5]]] }, /coordinates\[0\].*closed/],
      [
        'unclosed hole',
        {
          type: 'Polygon',
          coordinates: [
            SQUARE,
            [
              [7.2, 46.2],
              [7.2, 46.4],
              [7.4, 46.4],
              [7.4, 46.2],
              [7.3, 46.2],
            ],
          ],
        },
        /coordinates\[1\].*closed/,
      ],
      [
        'ring with 3 positions',
        {
          type: 'Polygon',
          coordinates: [
            [
              [7, 46],
              [8, 46],
              [7, 46],
            ],
          ],
        },
        /at least 4 positions/,
      ],
      ['polygon without rings', { type: 'Polygon', coordinates: [] }, /ring/],
      ['LineString with one position', { type: 'LineString', coordinates: [[7, 46]] }, /at least 2 positions/],
      ['longitude 200', { type: 'Point', coordinates: [200, 46] }, /longitude/],
      [
        'longitude 200 in a line',
        {
          type: 'LineString',
          coordinates: [
            [7, 46],
            [200, 46],
          ],
        },
        /coordinates\[1\].*longitude/,
      ],
      ['latitude -95', { type: 'Point', coordinates: [7, -95] }, /latitude/],
      [
        'latitude -95 in a ring',
        {
          type: 'Polygon',
          coordinates: [
            [
              [7, 46],
              [8, -95],
              [8, 47],
              [7, 46],
            ],
          ],
        },
        /latitude/,
      ],
      ['NaN as a string', { type: 'Point', coordinates: ['NaN', 46] }, /finite/],
      [
        'Infinity as a string',
        {
          type: 'LineString',
          coordinates: [
            [7, 46],
            [8, 'Infinity'],
          ],
        },
        /finite/,
      ],
      ['numbers as strings', { type: 'Point', coordinates: ['7', '46'] }, /finite/],
      ['one number', { type: 'Point', coordinates: [7] }, /longitude, latitude/],
      ['four numbers', { type: 'Point', coordinates: [7, 46, 1, 2] }, /longitude, latitude/],
      ['MultiPolygon', { type: 'MultiPolygon', coordinates: [[SQUARE]] }, /Point, LineString or Polygon/],
      ['Feature', { type: 'Feature', geometry: POINT, properties: {} }, /geometry/],
      ['no type', { coordinates: [7, 46] }, /Point, LineString or Polygon/],
      ['foreign member', { ...POINT, crs: { type: 'name' } }, /crs/],
      ['a string', 'POINT(7 46)', /geometry/],
      ['null', null, /geometry/],
      ['an array', [7, 46], /geometry/],
    ];
    for (const [name, geometry, problem] of cases) {
      const res = await postDrawing(roomId, { geometry }, s.users.owner.token);
      labelled(name, () => {
        const body = assertFieldError(res, 'geometry');
        assert.match(body.message, problem);
      });
    }
    const missing = assertFieldError(
      await postDrawing(roomId, { label: 'no shape' }, s.users.owner.token),
      'body.geometry',
    );
    assert.match(missing.message, /geometry/);
    assertFieldError(await postDrawing(roomId, { geometry: POINT, kind: 'circle' }, s.users.owner.token), 'body.kind');
    assert.deepEqual(await list(roomId), []);
    assert.deepEqual(await history(roomId), []);
  });

  test('style rules and label length: 400 naming the field; the boundaries pass', async () => {
    const roomId = await newRoom();
    const cases: [string, Record<string, unknown>, string][] = [
      ['color name', { style: { color: 'red' } }, 'body.style.color'],
      ['color without #', { style: { color: 'ff0000' } }, 'body.style.color'],
      ['color of 5 digits', { style: { color: '#12345' } }, 'body.style.color'],
      ['color not hex', { style: { color: '#ggg' } }, 'body.style.color'],
      ['fillColor not hex', { style: { fillColor: 'blue' } }, 'body.style.fillColor'],
      ['opacity 1.5', { style: { opacity: 1.5 } }, 'body.style.opacity'],
      ['opacity -0.1', { style: { opacity: -0.1 } }, 'body.style.opacity'],
      ['opacity string', { style: { opacity: '0.5' } }, 'body.style.opacity'],
      ['strokeWeight 101', { style: { strokeWeight: 101 } }, 'body.style.strokeWeight'],
      ['strokeWeight -1', { style: { strokeWeight: -1 } }, 'body.style.strokeWeight'],
      ['unknown style key', { style: { dashArray: [2, 2] } }, 'body.style.dashArray'],
      ['style not an object', { style: 'bold' }, 'body.style'],
      ['label 501', { label: 'l'.repeat(501) }, 'body.label'],
      ['label number', { label: 5 }, 'body.label'],
    ];
    for (const [name, body, field] of cases) {
      const res = await postDrawing(roomId, { geometry: POINT, ...body }, s.users.owner.token);
      labelled(name, () => assertFieldError(res, field));
    }
    assert.deepEqual(await list(roomId), []);

    const max = await createDrawing(roomId, s.users.owner.token, {
      label: 'l'.repeat(500),
      style: { color: '#ABC', fillColor: '#aabbccdd', opacity: 0, strokeWeight: 100 },
    });
    assert.equal(max.label.length, 500);
    assert.deepEqual(max.style, { color: '#ABC', fillColor: '#aabbccdd', opacity: 0, strokeWeight: 100 });
    const empty = await createDrawing(roomId, s.users.owner.token, { label: '', style: {} });
    assert.equal(empty.label, '');
    assert.equal((await list(roomId)).length, 2);
  });
});

describe('PATCH and DELETE /api/rooms/:roomId/drawings/:drawingId', () => {
  test('omitted fields stay; each given field changes', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token, {
      geometry: POLYGON,
      label: 'Park',
      style: { color: '#00ff00', opacity: 0.4 },
    });

    const relabelled = assertOk(await patchDrawing(roomId, drawing.id, { label: 'City park' }, s.users.editor.token));
    assert.deepEqual(Object.keys(relabelled).sort(), ['drawing', 'success']);
    assert.equal(relabelled.success, true);
    assert.deepEqual(relabelled.drawing, { ...drawing, label: 'City park', updatedAt: relabelled.drawing.updatedAt });
    assert.ok(relabelled.drawing.updatedAt >= drawing.updatedAt);

    const restyled = assertOk(
      await patchDrawing(roomId, drawing.id, { style: { fillColor: '#000' } }, s.users.owner.token),
    ).drawing;
    assert.deepEqual(restyled.style, { fillColor: '#000' });
    assert.equal(restyled.label, 'City park');
    assert.deepEqual(restyled.geometry, POLYGON);

    const moved = assertOk(await patchDrawing(roomId, drawing.id, { geometry: LINE }, s.users.owner.token)).drawing;
    assert.deepEqual(moved.geometry, LINE);
    assert.equal(moved.label, 'City park');
    assert.deepEqual(moved.style, { fillColor: '#000' });
    assert.equal(moved.createdBy, s.users.owner.id);
    assert.equal(moved.createdAt, drawing.createdAt);
    assert.deepEqual(await find(roomId, drawing.id), moved);
  });

  test('null clears label and style', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token, { label: 'Pin', style: { color: '#123456' } });
    const noLabel = assertOk(await patchDrawing(roomId, drawing.id, { label: null }, s.users.owner.token)).drawing;
    assert.equal(noLabel.label, null);
    assert.deepEqual(noLabel.style, { color: '#123456' });
    const plain = assertOk(await patchDrawing(roomId, drawing.id, { style: null }, s.users.owner.token)).drawing;
    assert.equal(plain.style, null);
    assert.equal(plain.label, null);
    assert.deepEqual(plain.geometry, POINT);
    assert.deepEqual(await find(roomId, drawing.id), plain);
  });

  test('a new geometry or style is validated; an empty body is 400 empty_update; nothing changes', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token, { geometry: POLYGON, label: 'keep' });
    const bad = assertFieldError(
      await patchDrawing(
        roomId,
        drawing.id,
        {
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [7, 46],
                [8, 46],
                [8, 47],
                [7, 47],
              ],
            ],
          },
        },
        s.users.owner.token,
      ),
      'geometry',
    );
    assert.match(bad.message, /closed/);
    assert.match(
      assertFieldError(
        await patchDrawing(
          roomId,
          drawing.id,
          { geometry: { type: 'Point', coordinates: [0, 95] } },
          s.users.owner.token,
        ),
        'geometry',
      ).message,
      /latitude/,
    );
    assertFieldError(await patchDrawing(roomId, drawing.id, { geometry: null }, s.users.owner.token), 'geometry');
    assertFieldError(
      await patchDrawing(roomId, drawing.id, { style: { opacity: 2 } }, s.users.owner.token),
      'body.style.opacity',
    );
    assertFieldError(
      await patchDrawing(roomId, drawing.id, { label: 'x'.repeat(501) }, s.users.owner.token),
      'body.label',
    );
    assertFieldError(
      await patchDrawing(roomId, drawing.id, { createdBy: 'me' }, s.users.owner.token),
      'body.createdBy',
    );
    assertError(await patchDrawing(roomId, drawing.id, {}, s.users.owner.token), 400, 'empty_update');
    assertError(
      await call(s.t.app, 'PATCH', drawingUrl(roomId, drawing.id), { auth: s.users.owner.token }),
      400,
      'empty_update',
    );
    assert.deepEqual(await find(roomId, drawing.id), drawing);
    assert.deepEqual(
      (await history(roomId)).map((e) => e.type),
      ['drawing.created'],
    );
  });

  test('DELETE answers {success, drawingId}; then the drawing is gone and every call on it is 404', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token);
    const keep = await createDrawing(roomId, s.users.owner.token, { geometry: LINE });
    assert.deepEqual(assertOk(await deleteDrawing(roomId, drawing.id, s.users.editor.token)), {
      success: true,
      drawingId: drawing.id,
    });
    assert.deepEqual(ids(await list(roomId)), [keep.id]);
    assertError(await deleteDrawing(roomId, drawing.id, s.users.owner.token), 404, 'not_found');
    assertError(await patchDrawing(roomId, drawing.id, { label: 'back?' }, s.users.owner.token), 404, 'not_found');
    assertError(await deleteDrawing(roomId, 'drawing-unknown', s.users.owner.token), 404, 'not_found');
    assertError(await patchDrawing(roomId, 'drawing-unknown', { label: 'x' }, s.users.owner.token), 404, 'not_found');
  });

  test("another room's drawing id is 404 for PATCH and DELETE, and stays untouched", async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const theirs = await createDrawing(other, s.users.owner.token, { label: 'theirs' });
    assertError(await patchDrawing(roomId, theirs.id, { label: 'mine now' }, s.users.owner.token), 404, 'not_found');
    assertError(await deleteDrawing(roomId, theirs.id, s.users.owner.token), 404, 'not_found');
    assert.deepEqual(await find(other, theirs.id), theirs);
    assert.deepEqual(await list(roomId), []);
  });
});

describe('access to drawings', () => {
  test('a viewer lists but gets 403 forbidden on writes', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token);
    assert.deepEqual(await list(roomId, s.users.viewer.token), [drawing]);
    assertError(await postDrawing(roomId, { geometry: POINT }, s.users.viewer.token), 403, 'forbidden');
    assertError(await patchDrawing(roomId, drawing.id, { label: 'x' }, s.users.viewer.token), 403, 'forbidden');
    assertError(await deleteDrawing(roomId, drawing.id, s.users.viewer.token), 403, 'forbidden');
    assert.deepEqual(await list(roomId), [drawing]);
  });

  test('a read token lists but gets 403 "API token lacks \'write\' permission" on writes', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token);
    const read = await issueToken(s.t.app, s.users.owner, roomId, ['read']);
    assert.deepEqual(await list(roomId, read.token), [drawing]);
    assertError(await postDrawing(roomId, { geometry: POINT }, read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    assertError(
      await patchDrawing(roomId, drawing.id, { label: 'x' }, read.token),
      403,
      'forbidden',
      TOKEN_ERRORS.lacksWrite,
    );
    assertError(await deleteDrawing(roomId, drawing.id, read.token), 403, 'forbidden', TOKEN_ERRORS.lacksWrite);
    assert.deepEqual(await list(roomId), [drawing]);
  });

  test('a write token patches and deletes; a token of another room is refused', async () => {
    const roomId = await newRoom();
    const other = await newRoom();
    const write = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const foreign = await issueToken(s.t.app, s.users.owner, other, ['read', 'write']);
    const drawing = await createDrawing(roomId, s.users.owner.token);
    assertError(
      await patchDrawing(roomId, drawing.id, { label: 'x' }, foreign.token),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assertError(
      await call(s.t.app, 'GET', drawingsUrl(roomId), { auth: foreign.token }),
      403,
      'forbidden',
      TOKEN_ERRORS.wrongRoom,
    );
    assert.equal(
      assertOk(await patchDrawing(roomId, drawing.id, { label: 'by script' }, write.token)).drawing.label,
      'by script',
    );
    assertOk(await deleteDrawing(roomId, drawing.id, write.token));
    assert.deepEqual(await list(roomId), []);
  });

  test('private room: stranger 403, anonymous 401; public room: anonymous lists but cannot draw', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token);
    assertError(await call(s.t.app, 'GET', drawingsUrl(roomId), { auth: s.users.stranger.token }), 403, 'forbidden');
    assertError(await postDrawing(roomId, { geometry: POINT }, s.users.stranger.token), 403, 'forbidden');
    assertError(await call(s.t.app, 'GET', drawingsUrl(roomId)), 401, 'unauthorized');
    assertError(await deleteDrawing(roomId, drawing.id), 401, 'unauthorized');

    const publicRoom = await newRoom({ isPublic: true });
    const shown = await createDrawing(publicRoom, s.users.owner.token);
    assert.deepEqual(assertOk(await call(s.t.app, 'GET', drawingsUrl(publicRoom))), { drawings: [shown] });
    assertError(await postDrawing(publicRoom, { geometry: POINT }), 401, 'unauthorized');
    assertError(await patchDrawing(publicRoom, shown.id, { label: 'x' }), 401, 'unauthorized');
    assertError(await deleteDrawing(publicRoom, shown.id), 401, 'unauthorized');
    assertError(await postDrawing(publicRoom, { geometry: POINT }, s.users.stranger.token), 403, 'forbidden');
    assert.deepEqual(await list(publicRoom), [shown]);
  });
});

describe('history, counts and clear', () => {
  test('drawing.created, drawing.updated and drawing.deleted with their actors', async () => {
    const roomId = await newRoom();
    const token = await issueToken(s.t.app, s.users.owner, roomId, ['write']);
    const drawing = await createDrawing(roomId, s.users.editor.token, { label: 'A' });
    assertOk(await patchDrawing(roomId, drawing.id, { label: 'B', style: null }, token.token));
    const second = await createDrawing(roomId, token.token, { geometry: LINE });
    assertOk(await deleteDrawing(roomId, drawing.id, s.users.owner.token));
    assertOk(await deleteDrawing(roomId, second.id, token.token));
    const events = (await history(roomId)).reverse();
    assert.deepEqual(
      events.map((e) => [e.type, e.objectType, e.objectId, e.actor.kind, e.actor.id]),
      [
        ['drawing.created', 'drawing', drawing.id, 'user', s.users.editor.id],
        ['drawing.updated', 'drawing', drawing.id, 'token', token.id],
        ['drawing.created', 'drawing', second.id, 'token', token.id],
        ['drawing.deleted', 'drawing', drawing.id, 'user', s.users.owner.id],
        ['drawing.deleted', 'drawing', second.id, 'token', token.id],
      ],
    );
    assert.deepEqual(events[0]!.changes, { geometry: POINT, label: 'A' });
    assert.deepEqual(events[1]!.changes, { label: 'B', style: null });
  });

  test('refused changes write no history', async () => {
    const roomId = await newRoom();
    const drawing = await createDrawing(roomId, s.users.owner.token);
    const before = await history(roomId);
    await postDrawing(roomId, { geometry: { type: 'Point', coordinates: [500, 0] } }, s.users.owner.token);
    await patchDrawing(roomId, drawing.id, {}, s.users.owner.token);
    await patchDrawing(roomId, drawing.id, { label: 'x' }, s.users.viewer.token);
    await deleteDrawing(roomId, 'drawing-unknown', s.users.owner.token);
    assert.deepEqual(await history(roomId), before);
  });

  test('counts.drawings follows creates and deletes; clear removes them all (removed.drawings = n)', async () => {
    const roomId = await newRoom();
    const other = await createRoom(s.t.app, s.users.owner);
    const survivor = await createDrawing(other, s.users.owner.token);
    assert.equal((await counts(roomId)).drawings, 0);
    const a = await createDrawing(roomId, s.users.owner.token);
    await createDrawing(roomId, s.users.editor.token, { geometry: LINE });
    await createDrawing(roomId, s.users.editor.token, { geometry: POLYGON });
    assert.equal((await counts(roomId)).drawings, 3);
    assertOk(await deleteDrawing(roomId, a.id, s.users.owner.token));
    assert.equal((await counts(roomId)).drawings, 2);

    const body = assertOk(await call(s.t.app, 'POST', `/api/rooms/${roomId}/clear`, { auth: s.users.owner.token }));
    assert.equal(body.success, true);
    assert.equal(body.removed.drawings, 2);
    assert.deepEqual(await list(roomId), []);
    assert.equal((await counts(roomId)).drawings, 0);
    const [latest] = await history(roomId);
    assert.equal(latest!.type, 'room.cleared');
    assert.equal(latest!.changes!.drawings, 2);
    assert.deepEqual(await list(other), [survivor]);
    assert.equal((await counts(other)).drawings, 1);
  });
});
