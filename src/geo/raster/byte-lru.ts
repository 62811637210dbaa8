/**
 * A least-recently-used map bounded by the bytes its entries declare (decoded raster blocks,
 * rendered tiles). Values may be promises, so concurrent readers of one entry share one read.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: Promise<V>; bytes: number }>();
  private held = 0;

  constructor(private maxBytes: number) {}

  /** Bytes of all entries now. */
  get bytes(): number {
    return this.held;
  }

  /** The entry, now the most recently used; undefined if absent. */
  get(key: string): Promise<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores an entry of `bytes`, then evicts the least recently used until within budget. */
  set(key: string, value: Promise<V>, bytes: number): void {
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    this.evict();
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.held -= entry.bytes;
  }

  /** Removes every entry whose key matches (a closed file's blocks). */
  deleteWhere(match: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (match(key)) this.delete(key);
  }

  /** Changes the budget, evicting at once if needed. */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    this.evict();
  }

  private evict(): void {
    for (const [key] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.delete(key);
    }
  }
}
