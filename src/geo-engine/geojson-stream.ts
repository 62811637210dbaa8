import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { GeoJsonError } from '../geo/geojson-points.js';

/**
 * A point feature needs a few dozen JSON values; this bound (and the one on its text) keeps
 * one malicious feature (a huge ignored property) from being parsed in memory. Fixed: a rule
 * of a bulk import's points, far above any real point, not a capacity to tune.
 */
export const MAX_FEATURE_VALUES = 20_000;
export const MAX_FEATURE_CHARS = 16 * 1024 ** 2;
/** How large one feature may be: JSON values (brackets, keys and items) and characters. */
export interface FeatureLimits {
  maxValues: number;
  maxChars: number;
  /** Characters of the file outside its features array (default MAX_OUTSIDE_CHARS). */
  maxOutsideChars?: number;
}
const POINT_LIMITS: FeatureLimits = { maxValues: MAX_FEATURE_VALUES, maxChars: MAX_FEATURE_CHARS };

/** What the file may hold outside its `features` array (type, name, crs, bbox, ...); fixed like the above. */
export const MAX_OUTSIDE_CHARS = 1024 ** 2;

/** JSON's punctuation, as char codes. */

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

const notJson = (detail: string) =>
  new GeoJsonError(`The file is not valid JSON (${detail.replace(/\s+/g, ' ').slice(0, 200)})`);
const notCollection = () =>
  new GeoJsonError('The file must be a GeoJSON FeatureCollection (top-level "type": "FeatureCollection")');
/** A file that does not start with `{`: some other JSON value, or no JSON at all. */
const notAnObject = (start: string) =>
  /^(\[|"|-|\d|true\b|false\b|null\b)/.test(start)
    ? notCollection()
    : notJson(`it starts with ${JSON.stringify(start)}`);
const where = (index: number) => `Feature ${index + 1} (features[${index}])`;

/**
 * Cuts the text of a FeatureCollection into the texts of its features, as it streams in,
 * without parsing them: it follows only strings and brackets. Each feature's text is then
 * one `JSON.parse` (V8's parser, many times faster than a token stream in JavaScript), which
 * also checks its syntax; the text outside the `features` array (kept, at most 1 MiB) is
 * parsed at the end, so the whole file is checked as JSON.
 */
class FeatureSplitter {
  /** `parse: false` only cuts the features (to read what is outside them), never parsing one. */
  constructor(
    private readonly limits: FeatureLimits = POINT_LIMITS,
    private readonly parse = true,
  ) {}

  /** Features cut so far. */
  count = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  /** Inside the top-level `features` array (depth 2 is between its elements). */
  private inFeatures = false;
  /** The text outside the features array (the array itself kept as `[]`). */
  private outside = '';
  /** The key at depth 1 whose value comes next, and where the last string at depth 1 started and ended in `outside`. */
  private key: string | null = null;
  private stringFrom = 0;
  private stringTo = 0;
  /** The current feature's text so far (pieces of earlier chunks), its length and its separators. */
  private pieces: string[] = [];
  private chars = 0;
  private values = 0;
  /** A comma was seen since the array opened (an empty element is then an error). */
  private afterComma = false;

  /** Cuts `text` (the next piece of the file); returns the features it completed, parsed. */
  push(text: string): unknown[] {
    const out: unknown[] = [];
    let i = 0;
    if (!this.started) {
      if (text.charCodeAt(0) === 0xfeff) i = 1;
      while (i < text.length && isSpace(text.charCodeAt(i))) i++;
      if (i === text.length) return out;
      if (text.charCodeAt(i) !== OPEN_BRACE) throw notAnObject(text.slice(i, i + 8));
      this.started = true;
    }
    const n = text.length;
    let from = i; // start of the text not yet kept (outside) or of the current feature's piece
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 1) this.stringTo = this.outside.length + i + 1 - from;
        }
        continue;
      }
      if (this.inFeatures) {
        if (c === QUOTE) inString = true;
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          depth++;
          this.values++;
        } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          if (depth === 2) {
            // `]` closes the features array: the last element (if any) ends here.
            if (c !== CLOSE_BRACKET) throw notJson('"features" ends with } instead of ]');
            this.endFeature(text.slice(from, i), out, true);
            this.inFeatures = false;
            this.outside += ']';
            from = i + 1;
          }
          depth--;
        } else if (c === COMMA) {
          if (depth === 2) {
            this.endFeature(text.slice(from, i), out, false);
            from = i + 1;
          } else this.values++;
        } else if (c === COLON) this.values++;
        continue;
      }
      // Outside the features array: everything is kept, and keys at depth 1 are followed.
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) this.stringFrom = this.outside.length + i - from;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        if (depth === 2 && c === OPEN_BRACKET && this.key === 'features') {
          this.keep(text.slice(from, i + 1));
          this.inFeatures = true;
          this.afterComma = false;
          from = i + 1;
        }
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
      else if (depth === 1 && c === COLON) {
        this.keep(text.slice(from, i));
        from = i;
        this.key = keyOf(this.outside.slice(this.stringFrom, this.stringTo));
      } else if (depth === 1 && c === COMMA) this.key = null;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    if (this.inFeatures) this.addPiece(text.slice(from));
    else this.keep(text.slice(from));
    return out;
  }

  /** The end of the file: the text outside the features, parsed, must be a FeatureCollection; it is answered. */
  end(): Record<string, unknown> {
    const outside = this.outsideValue() as Record<string, unknown> | null;
    if (outside?.type !== 'FeatureCollection') throw notCollection();
    return outside;
  }

  /** Inside the features array, at the end of the text pushed so far. */
  get amidFeatures(): boolean {
    return this.inFeatures;
  }

  /** Amid the features: the JSON before them, with the array closed (`"features": []`). */
  headValue(): unknown {
    return JSON.parse(`${this.outside}]}`);
  }

  /** The file's JSON without its features (`"features": []`), once it has all been pushed. */
  outsideValue(): unknown {
    if (!this.started) throw notJson('the file is empty');
    if (this.inFeatures || this.depth !== 0 || this.inString) throw notJson('the file ends before the JSON does');
    try {
      return JSON.parse(this.outside);
    } catch (error) {
      throw notJson((error as Error).message);
    }
  }

  private keep(text: string) {
    this.outside += text;
    const max = this.limits.maxOutsideChars ?? MAX_OUTSIDE_CHARS;
    if (this.outside.length > max) {
      throw new GeoJsonError(
        `The file must be a GeoJSON FeatureCollection: it holds more than ${max / 1024 ** 2} MiB of JSON outside its "features" array`,
      );
    }
  }

  private addPiece(text: string) {
    // Cutting only, a feature's text is never needed: none is kept, however long.
    if (!text || !this.parse) return;
    this.pieces.push(text);
    this.chars += text.length;
    this.checkSize();
  }

  private checkSize() {
    const { maxValues, maxChars } = this.limits;
    if (this.values >= maxValues || this.chars > maxChars) {
      const values = Number.isFinite(maxValues) ? `${maxValues} JSON values and ` : '';
      throw new GeoJsonError(
        `${where(this.count)} is too large: at most ${values}${maxChars / 1024 ** 2} MiB per feature`,
      );
    }
  }

  /** One element of the features array ends with `last` (its text in this chunk). */
  private endFeature(last: string, out: unknown[], closesArray: boolean) {
    if (!this.parse) {
      this.values = 0;
      this.count++;
      return;
    }
    const pieces = this.pieces;
    const text = pieces.length ? pieces.join('') + last : last;
    this.chars += last.length;
    this.checkSize();
    this.pieces = [];
    this.chars = 0;
    this.values = 0;
    if (isBlank(text)) {
      // `[]` is an empty collection; `[,`, `,,` and `,]` are not JSON.
      if (closesArray && !this.afterComma) return;
      throw notJson(`an empty element in "features" (features[${this.count}])`);
    }
    this.afterComma = !closesArray;
    try {
      out.push(JSON.parse(text));
    } catch (error) {
      throw notJson(`${where(this.count)}: ${(error as Error).message}`);
    }
    this.count++;
  }
}

function isSpace(c: number) {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isBlank(text: string) {
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** A key's JSON string text as the key, or null when it is not one (the final parse then says what is wrong). */
function keyOf(text: string): string | null {
  try {
    const key: unknown = JSON.parse(text);
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

/**
 * Streams the features of a GeoJSON FeatureCollection without holding the file, in batches
 * as they come (one chunk of the input at a time). The top-level `type` must be
 * FeatureCollection; it may come before or after the features, and is checked at the end.
 * Each feature may be as large as `limits` allow (by default a point's: MAX_FEATURE_VALUES).
 */
export async function* readFeatureBatches(
  input: Readable,
  limits?: FeatureLimits,
  onEnd?: (outside: Record<string, unknown>) => void,
): AsyncGenerator<unknown[]> {
  const splitter = new FeatureSplitter(limits);
  const decoder = new StringDecoder('utf8');
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const features = splitter.push(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (features.length) yield features;
  }
  const rest = decoder.end();
  if (rest) {
    const features = splitter.push(rest);
    if (features.length) yield features;
  }
  const outside = splitter.end();
  onEnd?.(outside);
}

/** The features of a FeatureCollection one at a time, with their index (see `readFeatureBatches`). */
export async function* readFeatures(input: Readable): AsyncGenerator<{ index: number; feature: unknown }> {
  let index = 0;
  for await (const batch of readFeatureBatches(input)) {
    for (const feature of batch) yield { index: index++, feature };
  }
}

/**
 * The JSON of a FeatureCollection before its features array (`"features": []`), read no further:
 * `whole` is false then, as members may follow the features. A file with no features array
 * (or one that ends within the text read with it) is read to its end, and answered whole.
 */
export function collectionHead(input: Readable): Promise<{ value: unknown; whole: boolean }> {
  return scanOutside(input, true);
}

/**
 * A FeatureCollection's JSON without its features (`"features": []`, the rest at most 1 MiB),
 * read without parsing a feature: its `type`, `links` and other members, whatever its size.
 */
export async function collectionOutside(input: Readable): Promise<unknown> {
  return (await scanOutside(input, false)).value;
}

/** A FeatureCollection's members but its features. */
export function withoutFeatures(collection: Record<string, unknown>): Record<string, unknown> {
  const { features: _, ...members } = collection;
  return members;
}

/** The file's JSON outside its features, its features cut apart unparsed; up to them only when `headOnly`. */
async function scanOutside(input: Readable, headOnly: boolean): Promise<{ value: unknown; whole: boolean }> {
  const splitter = new FeatureSplitter({ maxValues: Infinity, maxChars: Infinity }, false);
  const decoder = new StringDecoder('utf8');
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      splitter.push(decoder.write(chunk));
      if (headOnly && splitter.amidFeatures) return { value: splitter.headValue(), whole: false };
    }
  } finally {
    input.destroy();
  }
  splitter.push(decoder.end());
  return { value: splitter.outsideValue(), whole: true };
}
