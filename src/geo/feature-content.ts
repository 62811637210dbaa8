import { hash } from 'node:crypto';

/** Bytes of a SHA-1 digest. */
const DIGEST = 20;

/** Each feature's id and the SHA-1 of its content, in two typed arrays: a message moves them without copying. */
export interface ContentList {
  ids: Float64Array;
  hashes: Uint8Array;
  count: number;
}

/** What a refresh changed, by comparing each feature's geometry and properties. */
export interface ContentChanges {
  added: number;
  changed: number;
  removed: number;
  /** The ids whose feature changed or went, whose versions a refresh advances. */
  touched: number[];
}

/**
 * Collects the content of a layer's features, their geometry's and properties' text as
 * stored, as 28 bytes each (a refresh compares the layer with its source by them; a Map of
 * strings took about five times that, twice over, as the worker's result was copied).
 */
export class FeatureContent {
  private list: ContentList = { ids: new Float64Array(1024), hashes: new Uint8Array(1024 * DIGEST), count: 0 };

  add(id: number, geometry: string, properties: string): void {
    const list = this.grown();
    list.ids[list.count] = id;
    // A digest as text and copied is about twice as fast as one as a Buffer (no Buffer to make).
    const digest = hash('sha1', `${geometry}\0${properties}`, 'binary');
    const at = list.count * DIGEST;
    for (let i = 0; i < DIGEST; i++) list.hashes[at + i] = digest.charCodeAt(i);
    list.count += 1;
  }

  /** The content so far, its arrays trimmed to it; pass `[ids.buffer, hashes.buffer]` to transfer them. */
  result(): ContentList {
    const { ids, hashes, count } = this.list;
    return { ids: ids.slice(0, count), hashes: hashes.slice(0, count * DIGEST), count };
  }

  private grown(): ContentList {
    const list = this.list;
    if (list.count < list.ids.length) return list;
    const ids = new Float64Array(list.ids.length * 2);
    const hashes = new Uint8Array(ids.length * DIGEST);
    ids.set(list.ids);
    hashes.set(list.hashes);
    this.list = { ids, hashes, count: list.count };
    return this.list;
  }
}

/** The list's digests, each read as a 20-character key. */
function keysOf(list: ContentList): (index: number) => string {
  const bytes = Buffer.from(list.hashes.buffer, list.hashes.byteOffset, list.count * DIGEST);
  return (index) => bytes.toString('latin1', index * DIGEST, (index + 1) * DIGEST);
}

/** Whether the `i`th digest of `a` and the `j`th of `b` are the same (compared as five 32-bit words). */
function sameDigest(a: Uint32Array, i: number, b: Uint32Array, j: number): boolean {
  for (let k = 0; k < DIGEST / 4; k++) if (a[i * 5 + k] !== b[j * 5 + k]) return false;
  return true;
}

const wordsOf = (list: ContentList) => new Uint32Array(list.hashes.buffer, list.hashes.byteOffset, list.count * 5);

/**
 * Compares a layer's features (`before`) with the fresh ones (`after`) by content: a feature
 * with the same id, geometry and properties as one before is unchanged, and so is one with the
 * same geometry and properties as another before (a source that numbers its features anew);
 * of the others, an id found on both sides is changed, one only in the source added, one only
 * in the layer removed. Most features keep both, and are matched by id without keys.
 */
export function compareContent(before: ContentList, after: ContentList): ContentChanges {
  const [beforeWords, afterWords] = [wordsOf(before), wordsOf(after)];
  const positions = new Map<number, number>();
  for (let i = 0; i < before.count; i++) positions.set(before.ids[i]!, i);
  const matched = new Uint8Array(before.count);
  const restAfter: number[] = [];
  for (let j = 0; j < after.count; j++) {
    const i = positions.get(after.ids[j]!);
    if (i !== undefined && !matched[i] && sameDigest(beforeWords, i, afterWords, j)) matched[i] = 1;
    else restAfter.push(j);
  }
  const [beforeKey, afterKey] = [keysOf(before), keysOf(after)];
  const unmatched = new Map<string, number>();
  for (let i = 0; i < before.count; i++) {
    if (matched[i]) continue;
    const key = beforeKey(i);
    unmatched.set(key, (unmatched.get(key) ?? 0) + 1);
  }
  const newIds: number[] = [];
  for (const j of restAfter) {
    const key = afterKey(j);
    const left = unmatched.get(key) ?? 0;
    if (left > 0) unmatched.set(key, left - 1);
    else newIds.push(after.ids[j]!);
  }
  const oldLeft = new Set<number>();
  for (let i = 0; i < before.count; i++) {
    if (matched[i]) continue;
    const key = beforeKey(i);
    const left = unmatched.get(key) ?? 0;
    if (left > 0) {
      unmatched.set(key, left - 1);
      oldLeft.add(before.ids[i]!);
    }
  }
  const changed = newIds.filter((id) => oldLeft.has(id)).length;
  return { added: newIds.length - changed, changed, removed: oldLeft.size - changed, touched: [...oldLeft] };
}
