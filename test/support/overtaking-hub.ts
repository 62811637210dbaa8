import type { LiveHub, LiveListener, RoomEvent } from '../../src/infra/live-hub.js';

/**
 * A real hub (in-process or Redis) that can hold one publish back until the next has gone
 * out, as when two writes publish at once and the later change is delivered first.
 */
export class OvertakingHub implements LiveHub {
  private held: (() => void) | null = null;
  holdNext = false;
  heldOne: Promise<void> = Promise.resolve();
  private heldNow = () => {};

  constructor(private readonly hub: LiveHub) {}

  /** The next publish waits until another one went out. */
  hold() {
    this.holdNext = true;
    this.heldOne = new Promise((resolve) => (this.heldNow = resolve));
  }

  async publish(event: RoomEvent): Promise<void> {
    if (this.holdNext) {
      this.holdNext = false;
      await new Promise<void>((resolve) => {
        this.held = resolve;
        this.heldNow();
      });
      return this.hub.publish(event);
    }
    await this.hub.publish(event);
    const release = this.held;
    this.held = null;
    release?.();
  }

  subscribe(roomId: string, listener: LiveListener, missed?: () => void) {
    return this.hub.subscribe(roomId, listener, missed);
  }

  close() {
    return this.hub.close();
  }
}
