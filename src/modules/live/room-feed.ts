import type { LiveHub, LiveSubscription, RoomEvent } from '../../infra/live-hub.js';
import type { HistoryRepository } from '../history/history.repository.js';
import { liveEventOf } from '../history/history.presenter.js';

/** Most changes one gap fill reads from history: fixed, a client further behind reloads (MAX_REPLAY). */
export const MAX_FILL = 1000;

/** Receives the room's changes in version order, each with its JSON text (made once for every socket). */
export type FeedReceiver = (event: RoomEvent, text: string) => void;

/**
 * One instance's subscription to one room, shared by all of its open sockets. Changes of
 * several writers (or instances) can be published out of order; the feed puts them back in
 * version order and fills a gap from history once for the room, not once per socket, then
 * hands each change to every receiver with its JSON made once.
 *
 * It starts at the room's version its first socket read (or before the first change it sees,
 * if that came first); a socket that joined earlier than that fills its own gap (LiveService),
 * which only happens at the feed's start.
 */
export class RoomFeed {
  private readonly receivers = new Set<FeedReceiver>();
  private readonly subscription: LiveSubscription;
  private last: number | null = null;
  private readonly pending = new Map<number, RoomEvent>();
  private filling = false;

  constructor(
    private readonly roomId: string,
    hub: LiveHub,
    private readonly history: HistoryRepository,
  ) {
    this.subscription = hub.subscribe(
      roomId,
      (event) => this.receive(event),
      () => void this.fill(),
    );
  }

  /** Resolves once changes published from now on reach the receivers. */
  get ready(): Promise<void> {
    return this.subscription.ready;
  }

  get size(): number {
    return this.receivers.size;
  }

  /** The room's version as a socket read it: where the feed starts when it has seen no change yet. */
  startAt(version: number): void {
    this.last ??= version;
  }

  add(receiver: FeedReceiver): void {
    this.receivers.add(receiver);
  }

  remove(receiver: FeedReceiver): void {
    this.receivers.delete(receiver);
  }

  close(): void {
    this.subscription.unsubscribe();
  }

  private receive(event: RoomEvent): void {
    if (this.last === null) this.last = event.version - 1;
    if (event.version <= this.last) return; // a duplicate, or filled from history already
    this.pending.set(event.version, event);
    this.drain();
    if (this.pending.size && !this.filling) void this.fill();
  }

  /** Emits the pending changes that follow the last one without a gap. */
  private drain(): void {
    for (let next = this.pending.get(this.last! + 1); next; next = this.pending.get(this.last! + 1)) {
      this.pending.delete(next.version);
      this.emit(next);
    }
  }

  /**
   * Reads what is missing from history (a change another writer published later, or ones lost
   * while the hub's connection was down). History holds every change below one published,
   * since a room's versions are taken in committed order; if it does not reach the next
   * pending change, that change goes out anyway and each socket sees the gap (and resyncs).
   */
  private async fill(): Promise<void> {
    if (this.filling || this.last === null) return;
    this.filling = true;
    try {
      const rows = await this.history.since(this.roomId, this.last, MAX_FILL);
      for (const row of rows) {
        if (row.version === this.last + 1) {
          this.pending.delete(row.version);
          this.emit({ ...liveEventOf(row), roomId: this.roomId } as RoomEvent);
        }
      }
    } catch {
      // Left to the next change or the sockets' own catch-up.
    } finally {
      this.filling = false;
    }
    this.drain();
    if (this.pending.size) {
      // A hole history does not fill: skip to the next change rather than hold every socket.
      this.last = Math.min(...this.pending.keys()) - 1;
      this.drain();
      if (this.pending.size) void this.fill();
    }
  }

  private emit(event: RoomEvent): void {
    this.last = event.version;
    const { roomId: _, ...message } = event;
    const text = JSON.stringify(message);
    for (const receiver of this.receivers) receiver(event, text);
  }
}
