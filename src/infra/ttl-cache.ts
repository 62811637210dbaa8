/**
 * A small in-memory cache of lookups every request repeats (credentials, room access).
 * Entries expire after `ttlMs`; the owner deletes them at once when it changes the data.
 * The expiry bounds how long another instance's change can go unseen in scale-out.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** Bumped by every `forget`: a lookup that began before it must not store its result. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (generation !== this.generation) return value;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    return value;
  }

  /** Forgets the keys that start with `prefix` (all keys when empty). */
  forget(prefix = ''): void {
    this.generation++;
    if (prefix === '') return this.entries.clear();
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

/** The lookups the access check makes on every request, shared by the repositories that change them. */
export class AccessCache {
  /** Room rows with a user's role, by `<roomId>|<userId>`. */
  readonly rooms = new TtlCache<unknown>(2000);
  /** Room tokens by the hash of their secret. */
  readonly tokens = new TtlCache<unknown>(2000);
  private readonly listeners = new Set<(roomId: string | null) => void>();

  /** Tells `listener` when access to a room (or, with null, to any room) may have changed. */
  onChange(listener: (roomId: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  forgetRoom(roomId: string): void {
    this.rooms.forget(`${roomId}|`);
    for (const listener of this.listeners) listener(roomId);
  }

  forgetTokens(): void {
    this.tokens.forget();
    for (const listener of this.listeners) listener(null);
  }
}
