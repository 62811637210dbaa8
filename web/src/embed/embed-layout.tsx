import { useEffect } from 'preact/hooks';
import type { RoomInfo } from '../api/types';
import { t } from '../i18n/index.js';
import { Store, useStore } from '../store';
import { Legend } from '../room/legend';
import type { LiveChannel, LiveStatus } from '../room/live';
import { MapView } from '../room/map-view';
import { type RoomContextValue, useRoom } from '../room/room-context';
import type { RoomState } from '../room/room-model';
import { SearchBox } from '../room/search-box';
import { TimeBar } from '../room/time-bar';
import { bindEmbedBridge } from './embed-bridge';
import { EmbedLayers } from './embed-layers';
import { EmbedSelection } from './embed-selection';

const CONNECTING = new Store<LiveStatus>('connecting');

/** Hides the layers the address does not name, those added later too (once each: the viewer may show them). */
function hideOthers(room: RoomContextValue, wanted: Set<string>): () => void {
  const seen = new Set<string>();
  const hide = (state: RoomState | null) => {
    const ids = [...(state?.layers ?? []), ...(state?.rasters ?? [])].map((layer) => layer.id);
    const hiding = ids.filter((id) => !wanted.has(id) && !seen.has(id));
    for (const id of ids) seen.add(id);
    if (hiding.length > 0) room.hidden.set(new Set([...room.hidden.get(), ...hiding]));
  };
  hide(room.model.get());
  return room.model.subscribe(hide);
}

/**
 * An embed page's room: the map alone, live, with the controls its address asks for, the
 * selected marker's card, and a link to the full room. Nothing here changes the room.
 */
export function EmbedLayout({ live, info }: { live: LiveChannel | null; info: RoomInfo }) {
  const room = useRoom();
  const { model, embed, map, roomId } = room;
  const state = useStore(model);
  const shownMap = useStore(map);
  const status = useStore(live?.status ?? CONNECTING);
  const controls = embed!.controls;
  useEffect(() => (shownMap ? bindEmbedBridge(shownMap, roomId, room) : undefined), [shownMap]);
  useEffect(() => (embed!.layers ? hideOthers(room, new Set(embed!.layers)) : undefined), []);
  const name = state?.room.name ?? info.name ?? roomId;
  return (
    <div class="embed" data-live={status} data-testid="embed">
      <MapView info={info} />
      {state && controls.has('search') && (
        <div class="embed-search">
          <SearchBox />
        </div>
      )}
      {state && (controls.has('legend') || controls.has('layers')) && (
        <div class="map-corner">
          {controls.has('layers') && <EmbedLayers />}
          {controls.has('legend') && <Legend />}
        </div>
      )}
      {state && controls.has('time') && <TimeBar />}
      <EmbedSelection />
      <a class="embed-link" href={`/r/${roomId}`} target="_blank" rel="noopener noreferrer">
        {t('share:embed.open', { name })}
      </a>
    </div>
  );
}
