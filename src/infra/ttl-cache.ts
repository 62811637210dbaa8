/**
 * A small in-memory cache of lookups every request repeats (credentials, room access).
 * Entries expire after `ttlMs`; the owner deletes them at once when it changes the data.
 * The expiry bounds how long another instance's change can go unseen in scale-out.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const value = await load();
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
    return value;
  }

  /** Forgets the keys that start with `prefix` (all keys when empty). */
  forget(prefix = ''): void {
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

  forgetRoom(roomId: string): void {
    this.rooms.forget(`${roomId}|`);
  }
}
