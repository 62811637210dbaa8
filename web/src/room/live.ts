import { session } from '../session';
import { Store } from '../store';
import type { LiveEvent } from '../api/types';
import type { RoomModel } from './room-model';

export type LiveStatus = 'connecting' | 'live' | 'offline' | 'refused';

/**
 * The room's live channel: sends the credential as the first message, applies each change in
 * order, and after a lost connection reconnects with `since` = the last version it applied, so
 * nothing is missed (`resync` reloads the room when it was too far behind).
 */
export class LiveChannel {
  readonly status = new Store<LiveStatus>('connecting');
  private socket: WebSocket | null = null;
  private retry = 0;
  private closed = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly model: RoomModel) {}

  open() {
    const since = this.model.get()?.version ?? 0;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${this.model.roomId}/live?since=${since}`);
    this.socket = socket;
    this.status.set('connecting');
    socket.onopen = () => {
      const token = session.get().token;
      if (token) socket.send(JSON.stringify({ type: 'auth', token }));
    };
    socket.onmessage = (event) => {
      // The service's LiveEvent schema: what it sends, typed by the generated API types.
      const message: LiveEvent = JSON.parse(String(event.data));
      this.queue = this.queue.then(() => this.handle(message)).catch(() => this.reconnectSoon());
    };
    socket.onclose = (event) => {
      if (this.closed) return;
      if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
        this.status.set('refused');
        return;
      }
      this.reconnectSoon();
    };
  }

  private async handle(message: LiveEvent) {
    switch (message.type) {
      case 'hello':
        this.retry = 0;
        this.status.set('live');
        return;
      case 'resync':
        await this.model.load(message.version);
        return;
      case 'error':
        return; // the close that follows says what to do
      case 'presence.joined':
      case 'presence.left':
      case 'pointer':
      case 'view':
        return; // who is here and where they point: not shown by this page yet
      default:
        await this.model.apply(message);
    }
  }

  private reconnectSoon() {
    this.status.set('offline');
    this.socket?.close();
    const delay = Math.min(10_000, 500 * 2 ** this.retry++);
    setTimeout(() => !this.closed && this.open(), delay);
  }

  close() {
    this.closed = true;
    this.socket?.close();
  }
}
