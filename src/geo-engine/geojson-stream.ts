import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import StreamJson from 'stream-json';
import Assembler from 'stream-json/Assembler.js';
import { GeoJsonError } from '../geo/geojson-points.js';

/**
 * A point feature needs a few dozen JSON values; this bound keeps one malicious feature
 * (a huge ignored property) from being assembled in memory.
 */
const MAX_FEATURE_TOKENS = 20_000;

interface Token {
  name: string;
  value?: unknown;
}

/**
 * Turns parser tokens into the features of a FeatureCollection, synchronously, and passes
 * them on in batches (a token at a time through `for await` costs more than the parsing).
 */
class FeatureCollector extends Transform {
  /** The collection's top-level `type`, known once the input has ended. */
  type: unknown;
  private depth = 0; // 1 inside the top-level object, 2 inside its `features` array
  private key: unknown = null;
  private inFeatures = false;
  private feature: InstanceType<typeof Assembler> | null = null;
  private featureTokens = 0;
  private count = 0;
  private batch: unknown[] = [];

  constructor() {
    super({ objectMode: true, highWaterMark: 4 });
  }

  override _transform(token: Token, _encoding: BufferEncoding, done: TransformCallback) {
    try {
      this.consume(token);
    } catch (error) {
      return done(error as Error);
    }
    if (this.batch.length >= 256) this.flushBatch();
    done();
  }

  override _flush(done: TransformCallback) {
    this.flushBatch();
    done();
  }

  private flushBatch() {
    if (this.batch.length) this.push(this.batch);
    this.batch = [];
  }

  private consume(token: Token) {
    if (this.feature) {
      if (++this.featureTokens > MAX_FEATURE_TOKENS) {
        throw new GeoJsonError(
          `Feature ${this.count + 1} (features[${this.count}]) is too large: at most ${MAX_FEATURE_TOKENS} JSON values per feature`,
        );
      }
      this.feature.consume(token as never);
      if (this.feature.done) {
        this.batch.push(this.feature.current);
        this.feature = null;
        this.count++;
      }
      return;
    }
    if (this.inFeatures && this.depth === 2 && (token.name === 'startObject' || token.name === 'startArray')) {
      this.feature = new Assembler().consume(token as never);
      this.featureTokens = 1;
      return;
    }
    switch (token.name) {
      case 'startObject':
      case 'startArray':
        this.depth++;
        if (this.depth === 2 && this.key === 'features' && token.name === 'startArray') this.inFeatures = true;
        break;
      case 'endObject':
      case 'endArray':
        if (this.depth === 2) this.inFeatures = false;
        this.depth--;
        break;
      case 'keyValue':
        if (this.depth === 1) this.key = token.value;
        break;
      default:
        if (this.inFeatures && this.depth === 2) {
          this.batch.push(token.value ?? null);
          this.count++;
        } else if (this.depth === 1 && this.key === 'type') this.type = token.value;
    }
  }
}

/**
 * Streams the features of a GeoJSON FeatureCollection without holding the file: the
 * tokens are read as they come and each feature is assembled on its own. The top-level
 * `type` must be FeatureCollection; it may come before or after the features.
 */
export async function* readFeatures(input: Readable): AsyncGenerator<{ index: number; feature: unknown }> {
  const collector = new FeatureCollector();
  pipeline(input, StreamJson.parser({ streamValues: false }), collector, () => undefined);
  let index = 0;
  try {
    for await (const batch of collector as AsyncIterable<unknown[]>) {
      for (const feature of batch) yield { index: index++, feature };
    }
  } catch (error) {
    if (error instanceof GeoJsonError) throw error;
    throw new GeoJsonError(
      `The file is not valid JSON (${(error as Error).message.replace(/\s+/g, ' ').slice(0, 200)})`,
    );
  } finally {
    collector.destroy();
  }
  if (collector.type !== 'FeatureCollection') {
    throw new GeoJsonError('The file must be a GeoJSON FeatureCollection (top-level "type": "FeatureCollection")');
  }
}
