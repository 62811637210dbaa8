import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LiveHub, RoomEvent } from '../../src/infra/live-hub.js';
import { uniqueRoomId } from '../helpers.js';

/**
 * What every live hub must do, run against each implementation (in-process, Redis). `open`
 * gives two hubs as two instances of one deployment would have them (the in-process hub is
 * one instance: both are the same hub).
 */
export interface HubPair {
  first: LiveHub;
  second: LiveHub;
  close(): Promise<void>;
}

/** A change as the write path publishes it. */
export function change(roomId: string, version: number): RoomEvent {
  return {
    roomId,
    type: 'marker.deleted',
    objectType: 'marker',
    objectId: `mk_${version}`,
    data: null,
    version,
    at: Date.now(),
  } as RoomEvent;
}

/** Collects what a listener hears; `until` waits for a count (bounded, so a lost change fails the test). */
export class Heard {
  readonly events: RoomEvent[] = [];
  private wake = () => {};
  readonly listener = (event: RoomEvent) => {
    this.events.push(event);
    this.wake();
  };

  async until(count: number, ms = 5000): Promise<RoomEvent[]> {
    const deadline = Date.now() + ms;
    while (this.events.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`heard ${this.events.length} of ${count} changes within ${ms} ms`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(left, 50));
      });
    }
    return this.events;
  }

  versions() {
    return this.events.map((event) => event.version);
  }
}

/** Lets a change that should not arrive have its chance to (a round trip through Redis is well under this). */
export const quietly = () => new Promise((resolve) => setTimeout(resolve, 200));

export function liveHubContract(name: string, open: () => Promise<HubPair>) {
  describe(`live hub contract: ${name}`, () => {
    let hubs: HubPair;
    before(async () => {
      hubs = await open();
    });
    after(() => hubs.close());

    test("a published change reaches every listener of its room, on each instance, and no other room's", async () => {
      const [room, other] = [uniqueRoomId(), uniqueRoomId()];
      const [a, b, c] = [new Heard(), new Heard(), new Heard()];
      const subs = [
        hubs.first.subscribe(room, a.listener),
        hubs.second.subscribe(room, b.listener),
        hubs.second.subscribe(other, c.listener),
      ];
      await Promise.all(subs.map((s) => s.ready));
      await hubs.first.publish(change(room, 1));
      await hubs.second.publish(change(room, 2));
      assert.deepEqual(
        (await a.until(2)).map((e) => [e.roomId, e.version]),
        [
          [room, 1],
          [room, 2],
        ],
      );
      assert.deepEqual(await b.until(2), a.events);
      await quietly();
      assert.deepEqual(c.events, [], "another room's listener heard nothing");
      assert.equal(a.events.length, 2, 'each change once');
      for (const s of subs) s.unsubscribe();
    });

    test("one publisher's changes arrive in the order published, whole", async () => {
      const room = uniqueRoomId();
      const heard = new Heard();
      const sub = hubs.second.subscribe(room, heard.listener);
      await sub.ready;
      const sent = Array.from({ length: 200 }, (_, i) => change(room, i + 1));
      for (const event of sent) await hubs.first.publish(event);
      assert.deepEqual(await heard.until(200), sent);
      sub.unsubscribe();
    });

    test('after unsubscribing a listener hears nothing; the others of the room still do; a room can be joined again', async () => {
      const room = uniqueRoomId();
      const [stays, leaves] = [new Heard(), new Heard()];
      const staying = hubs.second.subscribe(room, stays.listener);
      const leaving = hubs.second.subscribe(room, leaves.listener);
      await Promise.all([staying.ready, leaving.ready]);
      leaving.unsubscribe();
      await hubs.first.publish(change(room, 1));
      await stays.until(1);
      await quietly();
      assert.deepEqual(leaves.versions(), []);

      staying.unsubscribe(); // the room's last listener on this instance
      await hubs.first.publish(change(room, 2));
      const again = new Heard();
      const rejoined = hubs.second.subscribe(room, again.listener);
      await rejoined.ready;
      await hubs.first.publish(change(room, 3));
      assert.deepEqual(await again.until(1).then(() => again.versions()), [3]);
      await quietly();
      assert.deepEqual(stays.versions(), [1], 'nothing after the last unsubscribe');
      assert.deepEqual(again.versions(), [3], 'nothing from before joining again');
      rejoined.unsubscribe();
    });

    test('a change carries every field the write path gave it', async () => {
      const room = uniqueRoomId();
      const heard = new Heard();
      const sub = hubs.first.subscribe(room, heard.listener);
      await sub.ready;
      const event = {
        ...change(room, 7),
        type: 'marker.created',
        data: { id: 'mk_1', title: 'Ünïcode "quoted" <b>', tags: ['a'], latitude: 46.5 },
      } as unknown as RoomEvent;
      await hubs.second.publish(event);
      assert.deepEqual(await heard.until(1), [event]);
      sub.unsubscribe();
    });
  });
}
