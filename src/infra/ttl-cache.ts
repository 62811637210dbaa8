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

  /** The fresh entry of `key` without waiting (nothing allocated), or undefined when `get` would load it. */
  known(key: string): { readonly value: V } | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expires > Date.now() ? hit : undefined;
  }

  /** Forgets the keys that start with `prefix` (all keys when empty). */
  forget(prefix = ''): void {
    this.generation++;
    if (prefix === '') return this.entries.clear();
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
