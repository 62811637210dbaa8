import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Db, isUniqueViolation } from '../../src/db/database.js';
import { AppError } from '../../src/errors.js';
import type { LiveHub, RoomEvent as LiveEvent } from '../../src/infra/live-hub.js';
import { presentDrawing } from '../../src/modules/drawings/drawings.presenter.js';
import { type RepeatableWork, WritePath } from '../../src/modules/history/write-path.js';
import { createRoom, scaffold, type TestApp, type TestUser } from '../helpers.js';

/** A live hub that records what it is given, and fails when told to. */
class RecordingHub implements LiveHub {
  events: LiveEvent[] = [];
  failing = false;
  async publish(event: LiveEvent) {
    if (this.failing) throw new Error('hub down');
    this.events.push(event);
  }
  subscribe() {
    return { ready: Promise.resolve(), unsubscribe: () => undefined };
  }
  async close() {}
}

let t: TestApp;
let owner: TestUser;
let hub: RecordingHub;
let writePath: WritePath;
const actor = { kind: 'user' as const, id: 'user-test' };

before(async () => {
  ({
    t,
    users: { owner },
  } = await scaffold({ users: ['owner'], rooms: [] }));
  hub = new RecordingHub();
  writePath = new WritePath(t.database, hub);
});
after(() => t.close());

const roomVersion = async (roomId: string) =>
  Number(
    (await t.database.db.selectFrom('rooms').select('version').where('id', '=', roomId).executeTakeFirstOrThrow())
      .version,
  );
const historyOf = (roomId: string) =>
  t.database.db.selectFrom('history').selectAll().where('room_id', '=', roomId).orderBy('version').execute();
const drawingRow = (roomId: string, id: string) => ({
  id,
  room_id: roomId,
  geometry: '{"type":"Point","coordinates":[0,0]}',
  label: null,
  style: null,
  created_by: actor.id,
  created_at: 1,
  updated_at: 1,
});

describe('WritePath', () => {
  test('writes, advances the version once per change, records history and publishes after commit', async () => {
    const roomId = await createRoom(t.app, owner);
    hub.events = [];
    const result = await writePath.write(roomId, actor, async (trx) => {
      await trx
        .insertInto('drawings')
        .values([drawingRow(roomId, 'drawing-a'), drawingRow(roomId, 'drawing-b')])
        .execute();
      assert.equal(hub.events.length, 0, 'nothing is published before the commit');
      return {
        result: 'done',
        changes: [
          {
            type: 'drawing.created',
            objectType: 'drawing',
            objectId: 'drawing-a',
            changes: { label: 'a' },
            data: presentDrawing(drawingRow(roomId, 'drawing-a')),
          },
          {
            type: 'drawing.created',
            objectType: 'drawing',
            objectId: 'drawing-b',
            data: presentDrawing(drawingRow(roomId, 'drawing-b')),
          },
        ],
      };
    });
    assert.equal(result, 'done');
    assert.equal(await roomVersion(roomId), 2);
    const history = await historyOf(roomId);
    assert.deepEqual(
      history.map((h) => [h.version, h.object_id, h.actor_kind, h.actor_id]),
      [
        [1, 'drawing-a', 'user', actor.id],
        [2, 'drawing-b', 'user', actor.id],
      ],
    );
    assert.deepEqual(JSON.parse(history[0]!.changes!), { label: 'a' });
    assert.equal(history[1]!.changes, null);
    assert.deepEqual(
      hub.events.map((e) => [e.version, e.type, e.objectId, e.roomId]),
      [
        [1, 'drawing.created', 'drawing-a', roomId],
        [2, 'drawing.created', 'drawing-b', roomId],
      ],
    );
  });

  test('a failing piece of work leaves no row, no version, no history and no event', async () => {
    const roomId = await createRoom(t.app, owner);
    hub.events = [];
    await assert.rejects(
      writePath.write(roomId, actor, async (trx) => {
        await trx.insertInto('drawings').values(drawingRow(roomId, 'drawing-lost')).execute();
        throw new Error('refused half-way');
      }),
      /refused half-way/,
    );
    assert.equal(await roomVersion(roomId), 0);
    assert.deepEqual(await historyOf(roomId), []);
    assert.equal(
      (await t.database.db.selectFrom('drawings').select('id').where('room_id', '=', roomId).execute()).length,
      0,
    );
    assert.deepEqual(hub.events, []);
  });

  test('work with no changes leaves the version alone', async () => {
    const roomId = await createRoom(t.app, owner);
    await writePath.write(roomId, actor, async () => ({ result: null, changes: [] }));
    assert.equal(await roomVersion(roomId), 0);
  });

  test('a change that cannot be broadcast is 502 broadcast_failed and stays saved', async () => {
    const roomId = await createRoom(t.app, owner);
    hub.failing = true;
    try {
      const error = await writePath
        .write(roomId, actor, async (trx) => {
          await trx.insertInto('drawings').values(drawingRow(roomId, 'drawing-kept')).execute();
          return {
            result: null,
            changes: [
              {
                type: 'drawing.created',
                objectType: 'drawing',
                objectId: 'drawing-kept',
                data: presentDrawing(drawingRow(roomId, 'drawing-kept')),
              },
            ],
          };
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      assert.ok(error instanceof AppError);
      assert.equal(error.statusCode, 502);
      assert.equal(error.code, 'broadcast_failed');
    } finally {
      hub.failing = false;
    }
    assert.equal(await roomVersion(roomId), 1);
    assert.equal((await historyOf(roomId)).length, 1);
  });

  test('concurrent writes to one room get distinct, gapless versions', async () => {
    const roomId = await createRoom(t.app, owner);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        writePath.write(roomId, actor, async (trx) => {
          await trx
            .insertInto('drawings')
            .values(drawingRow(roomId, `drawing-${i}`))
            .execute();
          return {
            result: null,
            changes: [
              {
                type: 'drawing.created',
                objectType: 'drawing',
                objectId: `drawing-${i}`,
                data: presentDrawing(drawingRow(roomId, `drawing-${i}`)),
              },
            ],
          };
        }),
      ),
    );
    const versions = (await historyOf(roomId)).map((h) => Number(h.version));
    assert.deepEqual(
      versions,
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal(await roomVersion(roomId), 20);
  });

  const createDrawing = (roomId: string, id: string) => async (trx: Db) => {
    await trx.insertInto('drawings').values(drawingRow(roomId, id)).execute();
    return {
      result: id,
      changes: [
        {
          type: 'drawing.created' as const,
          objectType: 'drawing' as const,
          objectId: id,
          data: presentDrawing(drawingRow(roomId, id)),
        },
      ],
    };
  };
  const drawingIds = async (roomId: string) =>
    (await t.database.db.selectFrom('drawings').select('id').where('room_id', '=', roomId).orderBy('id').execute()).map(
      (r) => r.id,
    );

  test('writes that arrive together: one that fails half-way is undone alone, the others keep their order', async () => {
    const roomId = await createRoom(t.app, owner);
    hub.events = [];
    // Called in one turn of the event loop: they share one group.
    const outcomes = await Promise.allSettled([
      writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-drawing-1`)),
      writePath.write(roomId, actor, async (trx) => {
        await createDrawing(roomId, `${roomId}-drawing-half`)(trx);
        throw new Error('refused after writing');
      }),
      writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-drawing-2`)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String((o.reason as Error).message))),
      [`${roomId}-drawing-1`, 'refused after writing', `${roomId}-drawing-2`],
      'each caller gets its own result or its own error',
    );
    assert.deepEqual(
      await drawingIds(roomId),
      [`${roomId}-drawing-1`, `${roomId}-drawing-2`],
      "the failed write's row is undone",
    );
    assert.deepEqual(
      (await historyOf(roomId)).map((h) => [Number(h.version), h.object_id]),
      [
        [1, `${roomId}-drawing-1`],
        [2, `${roomId}-drawing-2`],
      ],
    );
    assert.equal(await roomVersion(roomId), 2);
    assert.deepEqual(
      hub.events.map((e) => [e.version, e.objectId]),
      [
        [1, `${roomId}-drawing-1`],
        [2, `${roomId}-drawing-2`],
      ],
    );
  });

  test('writes that fail in a group cost the others one more run at most, and each gets its own error', async () => {
    const roomId = await createRoom(t.app, owner);
    const runs = new Map<string, number>();
    const counted = (name: string, work: RepeatableWork<string>) => async (trx: Db) => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return work(trx);
    };
    const failing = (name: string) =>
      counted(name, async () => {
        throw new Error(`${name} refused`);
      });
    const names = ['a', 'b', 'c', 'd', 'e'];
    const outcomes = await Promise.allSettled(
      names.map((name) =>
        writePath.write(
          roomId,
          actor,
          name === 'b' || name === 'e' ? failing(name) : counted(name, createDrawing(roomId, `${roomId}-${name}`)),
        ),
      ),
    );
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
      [`${roomId}-a`, 'b refused', `${roomId}-c`, `${roomId}-d`, 'e refused'],
    );
    assert.deepEqual(await drawingIds(roomId), [`${roomId}-a`, `${roomId}-c`, `${roomId}-d`]);
    for (const [name, count] of runs) assert.ok(count <= 2, `${name} ran ${count} times`);
    assert.equal(runs.get('b'), 1, 'the first failure is not run again');
    assert.equal(await roomVersion(roomId), 3);
  });

  test('a group that fails as a whole (a change history cannot hold) runs each write alone: only the bad one fails', async () => {
    const roomId = await createRoom(t.app, owner);
    hub.events = [];
    const outcomes = await Promise.allSettled([
      writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-drawing-a`)),
      writePath.write(roomId, actor, async (trx) => {
        const { changes } = await createDrawing(roomId, `${roomId}-drawing-bad`)(trx);
        // history.object_id is NOT NULL: the group's history insert fails, not this work.
        return { result: 'bad', changes: [{ ...changes[0]!, objectId: null as unknown as string }] };
      }),
      writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-drawing-b`)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(await drawingIds(roomId), [`${roomId}-drawing-a`, `${roomId}-drawing-b`]);
    assert.deepEqual(
      (await historyOf(roomId)).map((h) => [Number(h.version), h.object_id]),
      [
        [1, `${roomId}-drawing-a`],
        [2, `${roomId}-drawing-b`],
      ],
    );
    assert.deepEqual(
      hub.events.map((e) => [e.version, e.objectId]),
      [
        [1, `${roomId}-drawing-a`],
        [2, `${roomId}-drawing-b`],
      ],
    );
  });

  test("a write's unwaited statement that fails is that write's error, not the next one's that read after it", async () => {
    const roomId = await createRoom(t.app, owner);
    await writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-taken`));
    hub.events = [];
    // `sent`: the insert goes with the next statements and is not waited for (pipelined on
    // PostgreSQL); its id is taken, so it fails, and there the transaction fails with it.
    const sentTwice = (id: string) => async (trx: Db) => ({
      result: id,
      changes: [],
      sent: trx.insertInto('drawings').values(drawingRow(roomId, id)).execute(),
    });
    const readsThenCreates = (id: string) => async (trx: Db) => {
      await trx.selectFrom('drawings').select('id').where('room_id', '=', roomId).execute();
      return createDrawing(roomId, id)(trx);
    };
    const outcomes = await Promise.allSettled([
      writePath.write(roomId, actor, createDrawing(roomId, `${roomId}-first`)),
      writePath.write(roomId, actor, sentTwice(`${roomId}-taken`)),
      writePath.write(roomId, actor, readsThenCreates(`${roomId}-after`)),
      writePath.write(roomId, actor, sentTwice(`${roomId}-fresh`)),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      'only the write whose insert failed fails',
    );
    assert.ok(isUniqueViolation((outcomes[1] as PromiseRejectedResult).reason), 'and with its own error');
    assert.deepEqual(await drawingIds(roomId), [
      `${roomId}-after`,
      `${roomId}-first`,
      `${roomId}-fresh`,
      `${roomId}-taken`,
    ]);
    assert.deepEqual(
      hub.events.map((e) => [e.version, e.objectId]),
      [
        [2, `${roomId}-first`],
        [3, `${roomId}-after`],
      ],
    );
  });
});
