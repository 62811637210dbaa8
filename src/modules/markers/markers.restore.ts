import type { IconsRepository } from '../icons/icons.repository.js';
import type { KeptState, Restorable } from '../history/restorable.js';
import type { MarkerImages } from './marker-images.js';
import { markerColumns, newMarkerRow, presentMarker } from './markers.presenter.js';
import type { MarkersRepository } from './markers.repository.js';
import type { MarkerInput, StoredMarker } from './markers.schemas.js';

type KeptMarker = KeptState & StoredMarker;

/**
 * Markers back as history kept them. A photo that left storage (with the marker's deletion, or
 * replaced since) does not come back: the marker returns without it, and the restore says so;
 * an icon no longer in the room is left out the same way.
 */
export function markerRestorable(markers: MarkersRepository, images: MarkerImages, icons: IconsRepository): Restorable {
  return {
    objectType: 'marker',
    async prepare(roomId, kept) {
      const state = { ...kept } as KeptMarker;
      const notes: string[] = [];
      if (
        state.imageKey &&
        state.thumbnailKey &&
        !(await images.stillStored(roomId, state.imageKey, state.thumbnailKey))
      ) {
        Object.assign(state, { imageKey: null, thumbnailKey: null, imageMeta: null });
        notes.push('The photo left storage with the delete and does not come back');
      }
      if (state.markerIconId && !(await icons.exists(roomId, state.markerIconId))) {
        state.markerIconId = null;
        notes.push('The icon is no longer in the room; the marker comes back without it');
      }
      return { state, notes };
    },
    async restore(trx, roomId, kept) {
      const state = kept as KeptMarker;
      const row = {
        ...newMarkerRow(
          roomId,
          { latitude: state.latitude ?? 0, longitude: state.longitude ?? 0 },
          {
            createdBy: state.createdBy ?? '',
            createdAt: state.createdAt ?? Date.now(),
            imageMeta: state.imageMeta,
          },
        ),
        // The kept marker's fields as a full update (a title kept null stays null).
        ...markerColumns(state as MarkerInput),
        id: state.id,
        updated_at: Date.now(),
      };
      const previous = await markers.put(trx, row);
      const data = presentMarker(row);
      return {
        change: { type: previous ? 'marker.updated' : 'marker.created', objectType: 'marker', objectId: row.id, data },
        after: previous
          ? () => images.releaseUnreferenced(roomId, [previous.image_key, previous.thumbnail_key])
          : undefined,
      };
    },
  };
}
