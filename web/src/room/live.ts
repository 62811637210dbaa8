import { api, ok } from '../api/client';
import { session } from '../session';
import { Store } from '../store';
import type { LiveChange, LiveEvent } from '../api/types';
import type { RoomModel } from './room-model';
import type { Outgoing, RoomPresence } from './presence';

export type LiveStatus = 'connecting' | 'live' | 'offline' | 'refused';

/**
 * The room's live channel: sends the credential as the first message, applies each change in
 * order, and after a lost connection reconnects with `since` = the last version it applied, so
 * nothing is missed (`resync` reloads the room when it was too far behind).
 */
export class LiveChannel {
  readonly status = new Store<LiveStatus>('connecting');
  /** Each change as it is applied (room/announcer.tsx tells a screen reader of others'). */
  readonly applied = new Store<LiveChange | null>(null);
  private socket: WebSocket | null = null;
  private retry = 0;
  private closed = false;
  private queue: Promise<void> = Promise.resolve();
  /** A channel refused for a session that lapsed opens again once the person has signed in again (from the last version it applied). */
  private readonly stopWatching = session.subscribe(({ token, lapsed }) => {
    if (token && !lapsed && !this.closed && this.status.get() === 'refused') this.open();
  });

  constructor(
    private readonly model: RoomModel,
    private readonly presence?: RoomPresence,
    /**
     * A public room admits a socket without credential at once, as an anonymous reader: a member
     * there sends theirs in the query (the service keeps it out of its logs) to be present.
     */
    private readonly credentialInQuery = false,
  ) {}

  open() {
    // A room not loaded yet (an embed page) is loaded at the version the hello names.
    const since = this.model.get()?.version;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const token = session.get().token;
    const query = new URLSearchParams({
      ...(since !== undefined && { since: String(since) }),
      presence: String(Boolean(this.presence)),
    });
    if (token && this.credentialInQuery) query.set('access_token', token);
    const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${this.model.roomId}/live?${query}`);
    this.socket = socket;
    this.status.set('connecting');
    socket.onopen = () => {
      if (token && !this.credentialInQuery) socket.send(JSON.stringify({ type: 'auth', token }));
    };
    socket.onmessage = (event) => {
      // The service's LiveEvent schema: what it sends, typed by the generated API types.
      const message: LiveEvent = JSON.parse(String(event.data));
      if (isPresence(message)) {
        // Not room content: shown at once, not queued behind the changes being applied.
        this.presence?.handle(message);
        return;
      }
      this.queue = this.queue.then(() => this.handle(message)).catch(() => this.reconnectSoon());
    };
    socket.onclose = (event) => {
      if (this.closed) return;
      if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
        this.status.set('refused');
        this.presence?.connected(null);
        if (event.code === 4401 && token) this.checkSession();
        return;
      }
      this.reconnectSoon();
    };
  }

  private async handle(message: LiveEvent) {
    switch (message.type) {
      case 'hello':
        this.retry = 0;
        // The changes after the hello wait in the queue until the room is read at its version.
        if (!this.model.get()) await this.model.load(message.version);
        this.status.set('live');
        if (this.presence) {
          const socket = this.socket;
          this.presence.connected((message: Outgoing) => {
            if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
          });
          void this.presence.load().catch(() => {});
        }
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
      case 'editing':
        return; // handled as they come (onmessage)
      default:
        await this.model.apply(message);
        this.applied.set(message);
    }
  }

  /**
   * The credential was refused (a password changed elsewhere ends the session's sockets): one
   * request finds out through the client (api/client.ts), which lapses an ended session and
   * waits for the person to sign in again (then the channel reopens, `stopWatching`); a session
   * that is fine after all (its credential came too late) simply connects again.
   */
  private checkSession() {
    void ok(api.GET('/api/auth/me')).then(
      () => !this.closed && this.status.get() === 'refused' && this.open(),
      () => undefined,
    );
  }

  private reconnectSoon() {
    this.status.set('offline');
    this.presence?.connected(null);
    this.socket?.close();
    const delay = Math.min(10_000, 500 * 2 ** this.retry++);
    setTimeout(() => !this.closed && this.open(), delay);
  }

  close() {
    this.closed = true;
    this.stopWatching();
    this.presence?.connected(null);
    this.socket?.close();
  }
}

const PRESENCE_TYPES = new Set(['presence.joined', 'presence.left', 'pointer', 'view', 'editing']);
const isPresence = (
  message: LiveEvent,
): message is Extract<LiveEvent, { type: 'presence.joined' | 'presence.left' | 'pointer' | 'view' | 'editing' }> =>
  PRESENCE_TYPES.has(message.type);
