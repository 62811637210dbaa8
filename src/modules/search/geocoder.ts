import { AppError, geocoderFailed, geocoderNotConfigured } from '../../errors.js';
import { placesOf } from './geocoder-answers.js';
import type { GeocodeResults } from './search.schemas.js';

/** Places one search answers at most: fixed, what the Find box lists. */
export const PLACES = 8;
/** The most bytes of a geocoder's answer read: a page of places is a few kB. */
const MAX_ANSWER_BYTES = 512 * 1024;

/**
 * The place geocoder the service asks on behalf of the page (a Nominatim- or Photon-compatible
 * search address, GEOCODER_URL), so the page's CSP needs no other origin. Without an address
 * every search is `not_configured`; a failing, slow or strange upstream is `geocoder_failed`.
 */
export class Geocoder {
  constructor(
    private readonly url: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  get configured(): boolean {
    return this.url !== undefined;
  }

  async search(q: string): Promise<GeocodeResults> {
    if (!this.url) throw geocoderNotConfigured();
    const address = new URL(this.url);
    address.searchParams.set('q', q.trim());
    address.searchParams.set('limit', String(PLACES));
    let text: string;
    try {
      const response = await fetch(address, {
        headers: { accept: 'application/json', 'user-agent': 'Maproom (place search)' },
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw geocoderFailed(`it answered HTTP ${response.status}`);
      }
      text = await boundedText(response);
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof Error && error.name === 'TimeoutError')
        throw geocoderFailed(`no answer within ${this.timeoutMs} ms`);
      throw geocoderFailed('it could not be reached');
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw geocoderFailed('its answer is not JSON');
    }
    const places = placesOf(answer);
    if (!places) throw geocoderFailed('its answer is neither Nominatim JSON nor Photon GeoJSON');
    return { results: places.slice(0, PLACES) };
  }
}

/** The answer's text, refused past MAX_ANSWER_BYTES (declared or streamed): a list of places is small. */
async function boundedText(response: Response): Promise<string> {
  const tooBig = () => geocoderFailed(`its answer is over ${MAX_ANSWER_BYTES / 1024} kB`);
  if (Number(response.headers.get('content-length')) > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw tooBig();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooBig(); // leaving the loop cancels the stream
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
