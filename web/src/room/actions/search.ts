import { api, ok } from '../../api/client';
import type { Place, SearchResults } from '../../api/types';
import { session } from '../../session';
import type { RoomModel } from '../room-model';

/** How many things of the room one search shows. */
const RESULTS = 20;

/** The room's markers, drawings and layer features holding a text, and the layers searched only in part (a read, for display). */
export async function searchRoom(model: RoomModel, q: string): Promise<SearchResults> {
  const params = { path: { roomId: model.roomId }, query: { q, limit: RESULTS } };
  return ok(api.GET('/api/rooms/{roomId}/search', { params }));
}

/** Places of that name from the service's geocoder (a read, for display). */
export async function findPlaces(q: string): Promise<Place[]> {
  return (await ok(api.GET('/api/geocode', { params: { query: { q } } }))).results;
}

/**
 * Whether places can be looked for here: the install has a geocoder (the service writes it into
 * the page with the base layers) and the person is signed in (the service asks it for them only).
 */
export function placesOffered(): boolean {
  const element = document.getElementById('maproom-config');
  const config = element ? (JSON.parse(element.textContent ?? '{}') as { geocoder?: boolean }) : {};
  return Boolean(config.geocoder && session.get().user);
}
