import { randomUUID } from 'node:crypto';
import { Value } from 'typebox/value';
import type { Actor } from '../../auth/access.js';
import type { Present, Presence } from '../../infra/presence.js';
import type { Broadcast } from '../../infra/redis-broadcast.js';
import type { ActorNames } from '../users/actor-names.js';
import { ClientMessage, PresenceEvent } from './live-events.js';

/** A presence message for a room's sockets, as instances tell each other. */
export interface PresenceNotice {
  roomId: string;
  /** As told to the room's tokens: a user without a name is "Member". */
  event: PresenceEvent;
  /** That user's e-mail: their name for the room's members. */
  email?: string;
}

/** The name of a user without one, for those who may not see members' e-mails (room tokens). */
export const UNNAMED_MEMBER = 'Member';

/**
 * At most one pointer and one view per person or token in a room in this time is relayed (on
 * this instance), whatever their number of sockets. One that comes sooner waits for the end of
 * the time, replaced by any newer one: so the last position always arrives (a follower's map
 * ends where the followed one stopped), and never after a newer one.
 */
const RELAY_EVERY_MS = 50;

type Moved = ClientMessage['type'];

/** A person's or token's pointer and view in a room: when each was last relayed, the one waiting, and how many of their sockets are here. */
interface Relayed {
  pointer: number;
  view: number;
  editing: number;
  waiting: Partial<Record<Moved, { message: ClientMessage; from: string; timer: ReturnType<typeof setTimeout> }>>;
  sockets: number;
}

/** One socket in the room, as presence sees it. */
export interface Visitor {
  /** A message the client sent: a pointer, view or editing is relayed (throttled); anything else is ignored. */
  received(raw: string): void;
  /** The socket closed. */
  leave(): Promise<void>;
}

/**
 * Who is in a room, and what they point at. Each identified socket (a user or token; anonymous
 * readers of a public room are not listed) is an entry of `Presence`; the first socket of a person
 * or token tells the room `presence.joined`, their last `presence.left`. Pointer and view messages
 * are relayed to the room's other sockets, never stored. Other instances hear everything through
 * `others` (Redis in scale-out).
 */
export class RoomPresence {
  /** The sockets of each room that asked for presence news, and whether each may see members' e-mails. */
  private readonly sockets = new Map<string, Map<string, { send: (text: string) => void; emails: boolean }>>();
  /** Each room's people and tokens on this instance (`roomId|kind|id`): their throttle, shared by their sockets. */
  private readonly relayed = new Map<string, Relayed>();

  constructor(
    private readonly presence: Presence,
    private readonly names: ActorNames,
    private readonly others?: Broadcast<PresenceNotice>,
    /** Epoch milliseconds now (tests give their own clock). */
    private readonly now: () => number = Date.now,
  ) {
    others?.listen(
      (notice) => {
        if (isNotice(notice)) this.deliver(notice);
      },
      () => {},
    );
  }

  /** Who is there; `emails`: the caller may see members' e-mails (a member), as names of users without one. */
  async list(roomId: string, emails: boolean): Promise<Present[]> {
    return (await this.presence.list(roomId)).map(({ email, ...present }) =>
      emails && email ? { ...present, name: email } : present,
    );
  }

  async close() {
    for (const relayed of this.relayed.values()) dropWaiting(relayed);
    await Promise.all([this.presence.close(), this.others?.close()]);
  }

  /**
   * A socket of the room is present; with `send` it is told presence news and others' pointers
   * (`emails`: with members' e-mails as the names of users without one, for a member's socket).
   */
  async enter(roomId: string, actor: Actor, send?: (text: string) => void, emails = false): Promise<Visitor> {
    const connectionId = randomUUID();
    const plain = await this.names.one(actor); // its id when it has no name
    const named = plain !== actor.id ? plain : undefined;
    const email = !named && actor.kind === 'user' ? await this.names.one(actor, { emails: true }) : undefined;
    const who = { kind: actor.kind, id: actor.id, name: named ?? (actor.kind === 'user' ? UNNAMED_MEMBER : actor.id) };
    const byEmail = email && email !== actor.id ? { email } : {};
    let room = this.sockets.get(roomId);
    if (!room) this.sockets.set(roomId, (room = new Map()));
    if (send) room.set(connectionId, { send, emails });
    const since = this.now();
    if (await this.presence.join(roomId, connectionId, { ...who, since, ...byEmail })) {
      // To the others: the new socket reads who is there from GET /presence.
      this.tell({ roomId, event: { type: 'presence.joined', ...who, since }, ...byEmail }, connectionId);
    }
    const throttleKey = `${roomId}|${actor.kind}|${actor.id}`;
    let lastRelayed = this.relayed.get(throttleKey);
    if (!lastRelayed)
      this.relayed.set(throttleKey, (lastRelayed = { pointer: 0, view: 0, editing: 0, waiting: {}, sockets: 0 }));
    lastRelayed.sockets++;
    const relayed = lastRelayed;
    let left = false;
    return {
      received: (raw) => {
        let message: unknown;
        try {
          message = JSON.parse(raw);
        } catch {
          return;
        }
        if (!Value.Check(ClientMessage, message)) return;
        const { type } = message;
        // Not to the socket it came from.
        const relay = (moved: ClientMessage, from: string) => {
          relayed[type] = this.now();
          this.tell({ roomId, event: { ...moved, from: who }, ...byEmail }, from);
        };
        const wait = RELAY_EVERY_MS - (this.now() - relayed[type]);
        const waiting = relayed.waiting[type];
        if (wait <= 0) {
          // Newer than the one waiting, which is not relayed after it.
          if (waiting) clearTimeout(waiting.timer);
          delete relayed.waiting[type];
          relay(message, connectionId);
        } else if (waiting) Object.assign(waiting, { message, from: connectionId });
        else {
          const timer = setTimeout(() => {
            const last = relayed.waiting[type];
            delete relayed.waiting[type];
            if (last) relay(last.message, last.from);
          }, wait);
          timer.unref();
          relayed.waiting[type] = { message, from: connectionId, timer };
        }
      },
      leave: async () => {
        if (left) return;
        left = true;
        if (--relayed.sockets === 0) {
          dropWaiting(relayed);
          if (this.relayed.get(throttleKey) === relayed) this.relayed.delete(throttleKey);
        }
        room.delete(connectionId);
        if (room.size === 0 && this.sockets.get(roomId) === room) this.sockets.delete(roomId);
        if (await this.presence.leave(roomId, connectionId)) {
          this.tell({ roomId, event: { type: 'presence.left', ...who }, ...byEmail });
        }
      },
    };
  }

  /** To this instance's sockets of the room (but the sender's) and to the other instances. */
  private tell(notice: PresenceNotice, except?: string) {
    this.deliver(notice, except);
    this.others?.send(notice);
  }

  private deliver(notice: PresenceNotice, except?: string) {
    const plain = JSON.stringify(notice.event);
    const forMembers = notice.email ? JSON.stringify(namedBy(notice.event, notice.email)) : plain;
    for (const [connectionId, socket] of this.sockets.get(notice.roomId) ?? [])
      if (connectionId !== except) socket.send(socket.emails ? forMembers : plain);
  }
}

/** The event with its person named `name`. */
function namedBy(event: PresenceEvent, name: string): PresenceEvent {
  return 'from' in event ? { ...event, from: { ...event.from, name } } : { ...event, name };
}

/** Whether another instance's message is a presence notice this version knows. */
function isNotice(value: unknown): value is PresenceNotice {
  const notice = value as Partial<PresenceNotice> | null;
  return (
    typeof notice?.roomId === 'string' &&
    (notice.email === undefined || typeof notice.email === 'string') &&
    Value.Check(PresenceEvent, notice.event)
  );
}

/** Gone (the last socket, or the service): what waited is not relayed. */
function dropWaiting(relayed: Relayed) {
  for (const waiting of Object.values(relayed.waiting)) clearTimeout(waiting.timer);
  relayed.waiting = {};
}
