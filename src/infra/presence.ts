/**
 * Who has a room's live channel open: one entry per open socket (a connection), listed one per
 * person or token. In this process (InProcessPresence) or shared by every instance through Redis
 * with expiry (RedisPresence, infra/redis-presence.ts), like the live hub.
 */

/** A person or token in a room: who, their name, and since when (epoch ms) they are there. */
export interface Present {
  kind: 'user' | 'token';
  id: string;
  /** Their name; for a user without one, "Member" (the e-mail is for members only). */
  name: string;
  since: number;
  /** A user without a name: their e-mail, the name shown to the room's members (not to tokens). */
  email?: string;
}

export interface Presence {
  /** Marks one open socket present; answers whether its person or token was not present before. */
  join(roomId: string, connectionId: string, who: Present): Promise<boolean>;
  /** Forgets one socket; answers whether its person or token has no socket left in the room. */
  leave(roomId: string, connectionId: string): Promise<boolean>;
  /** One entry per person or token present, the earliest `since` of their sockets, oldest first. */
  list(roomId: string): Promise<Present[]>;
  /** This instance's sockets counted once per person or token and room, and the rooms they are in (the metrics; no I/O). */
  here(): PresentHere;
  close(): Promise<void>;
}

/** The people and tokens present through one instance's sockets (`Presence.here`). */
export interface PresentHere {
  /** Each person or token once per room they are in, however many sockets they have open. */
  people: number;
  rooms: number;
}

/** Whether two entries are the same person or token. */
export const sameOne = (a: Present, b: Present) => a.kind === b.kind && a.id === b.id;

/** Counts `Presence.here`'s answer from the instance's sockets: their rooms and who they are. */
export function presentHere(sockets: Iterable<{ roomId: string; who: Present }>): PresentHere {
  const people = new Set<string>();
  const rooms = new Set<string>();
  for (const { roomId, who } of sockets) {
    people.add(`${roomId}|${who.kind}|${who.id}`);
    rooms.add(roomId);
  }
  return { people: people.size, rooms: rooms.size };
}

/** The entries of a room's sockets, one per person or token with its earliest `since`, oldest first. */
export function presentOnce(entries: Iterable<Present>): Present[] {
  const byWho = new Map<string, Present>();
  for (const entry of entries) {
    const key = `${entry.kind}|${entry.id}`;
    const seen = byWho.get(key);
    if (!seen || entry.since < seen.since) byWho.set(key, entry);
  }
  return [...byWho.values()].sort((a, b) => a.since - b.since || a.id.localeCompare(b.id));
}

export class InProcessPresence implements Presence {
  private readonly rooms = new Map<string, Map<string, Present>>();

  async join(roomId: string, connectionId: string, who: Present): Promise<boolean> {
    let sockets = this.rooms.get(roomId);
    if (!sockets) this.rooms.set(roomId, (sockets = new Map()));
    const already = [...sockets.values()].some((entry) => sameOne(entry, who));
    sockets.set(connectionId, who);
    return !already;
  }

  async leave(roomId: string, connectionId: string): Promise<boolean> {
    const sockets = this.rooms.get(roomId);
    const who = sockets?.get(connectionId);
    if (!sockets || !who) return false;
    sockets.delete(connectionId);
    if (sockets.size === 0) this.rooms.delete(roomId);
    return ![...sockets.values()].some((entry) => sameOne(entry, who));
  }

  async list(roomId: string): Promise<Present[]> {
    return presentOnce(this.rooms.get(roomId)?.values() ?? []);
  }

  here(): PresentHere {
    const rooms = this.rooms;
    return presentHere(
      (function* () {
        for (const [roomId, sockets] of rooms) for (const who of sockets.values()) yield { roomId, who };
      })(),
    );
  }

  async close(): Promise<void> {
    this.rooms.clear();
  }
}
