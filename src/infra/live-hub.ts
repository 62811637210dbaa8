/**
 * The registry of live changes. modules/live/live-events.ts fills it (`declare module`) with
 * the union of every change type and its data: the hub, the write path and the live channel
 * are typed by that one union without this layer importing the domains.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface LiveChanges {}

/** A change of a room's content as the hub carries it: one of the union's members, with its room. */
export type RoomEvent = LiveChanges extends { change: infer C } ? C & { roomId: string } : never;

export type LiveListener = (event: RoomEvent) => void;

/** A listener's hold on a room: changes published after `ready` resolved reach it. */
export interface LiveSubscription {
  /** Resolves once the hub delivers the room's changes; rejects when it cannot (Redis down). */
  ready: Promise<void>;
  unsubscribe(): void;
}

/**
 * Fans changes out to the clients that have a room open: in this process (InProcessLiveHub)
 * or on every instance (RedisLiveHub, infra/redis-live-hub.ts). Changes of one publisher
 * arrive in the order published; changes of several may not, and a lost connection may lose
 * some, which the hub reports through `missed`: the listener catches up from history.
 */
export interface LiveHub {
  /** Rejects when the change could not be handed on (the write path answers 502). */
  publish(event: RoomEvent): Promise<void>;
  /** `missed` is called when changes of the room may have been lost since `ready`. */
  subscribe(roomId: string, listener: LiveListener, missed?: () => void): LiveSubscription;
  close(): Promise<void>;
}

export class InProcessLiveHub implements LiveHub {
  private readonly rooms = new Map<string, Set<LiveListener>>();

  async publish(event: RoomEvent): Promise<void> {
    for (const listener of this.rooms.get(event.roomId) ?? []) listener(event);
  }

  subscribe(roomId: string, listener: LiveListener): LiveSubscription {
    let listeners = this.rooms.get(roomId);
    if (!listeners) this.rooms.set(roomId, (listeners = new Set()));
    listeners.add(listener);
    return {
      ready: Promise.resolve(),
      unsubscribe: () => {
        listeners.delete(listener);
        if (listeners.size === 0) this.rooms.delete(roomId);
      },
    };
  }

  async close(): Promise<void> {
    this.rooms.clear();
  }
}
