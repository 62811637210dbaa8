/** A change as live clients receive it (the same type names as history). */
export interface LiveEvent {
  roomId: string;
  type: string;
  objectType: string;
  objectId: string;
  data: unknown;
  version: number;
  at: number;
}

export type LiveListener = (event: LiveEvent) => void;

/** Fans changes out to the clients that have a room open: in-process now, Redis later. */
export interface LiveHub {
  publish(event: LiveEvent): Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe(roomId: string, listener: LiveListener): () => void;
  close(): Promise<void>;
}

export class InProcessLiveHub implements LiveHub {
  private readonly rooms = new Map<string, Set<LiveListener>>();

  async publish(event: LiveEvent): Promise<void> {
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
