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

/** Fans changes out to the clients that have a room open: in-process now, Redis later. */
export interface LiveHub {
  publish(event: RoomEvent): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(roomId: string, listener: LiveListener): () => void;
  close(): Promise<void>;
}

export class InProcessLiveHub implements LiveHub {
  private readonly rooms = new Map<string, Set<LiveListener>>();

  async publish(event: RoomEvent): Promise<void> {
    for (const listener of this.rooms.get(event.roomId) ?? []) listener(event);
  }

  subscribe(roomId: string, listener: LiveListener): () => void {
    let listeners = this.rooms.get(roomId);
    if (!listeners) this.rooms.set(roomId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.rooms.delete(roomId);
    };
  }

  async close(): Promise<void> {
    this.rooms.clear();
  }
}
