import { geocoderFailed, geocoderNotConfigured } from '../../errors.js';
import { placesOf } from './geocoder-answers.js';
import type { GeocodeResults } from './search.schemas.js';

/** Places one search answers at most. */
const PLACES = 8;

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
    let response: Response;
    let answer: unknown;
    try {
      response = await fetch(address, {
        headers: { accept: 'application/json', 'user-agent': 'Maproom (place search)' },
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      answer = response.ok ? await response.json() : undefined;
    } catch (error) {
      if (error instanceof Error && error.name === 'TimeoutError')
        throw geocoderFailed(`no answer within ${this.timeoutMs} ms`);
      if (error instanceof SyntaxError) throw geocoderFailed('its answer is not JSON');
      throw geocoderFailed('it could not be reached');
    }
    if (!response.ok) throw geocoderFailed(`it answered HTTP ${response.status}`);
    const places = placesOf(answer);
    if (!places) throw geocoderFailed('its answer is neither Nominatim JSON nor Photon GeoJSON');
    return { results: places.slice(0, PLACES) };
  }
}
