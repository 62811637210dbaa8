import { useState } from 'preact/hooks';
import { t } from '../i18n/index.js';
import { orderedLayers } from '../map/layer-style';
import { legendItems } from '../map/print-layout';
import { useStore } from '../store';
import { PrintDialog } from './print-dialog';
import { useRoom } from './room-context';
import { shownState } from './time-view';

/** The room's "Print / export" button and its dialog, with the legend of what the map shows now (as the legend lists it). */
export function RoomPrint() {
  const { model, map, hidden, timeView } = useRoom();
  const [open, setOpen] = useState(false);
  const shownMap = useStore(map);
  const now = useStore(model);
  const view = useStore(timeView);
  const hiddenHere = useStore(hidden);
  if (!shownMap || !now) return null;
  const state = shownState(now, view, Date.now());
  const layers = orderedLayers(state.layers).filter((l) => l.style.visible && !hiddenHere.has(l.id));
  const rasters = state.rasters.filter((r) => !hiddenHere.has(r.id));
  return (
    <>
      <button
        type="button"
        class="print-button"
        aria-label={t('print:open')}
        title={t('print:open')}
        onClick={() => setOpen(true)}
      >
        <PrinterIcon /> <span class="print-words">{t('print:open')}</span>
      </button>
      {open && (
        <PrintDialog
          map={shownMap}
          name={now.room.name ?? now.room.roomId}
          legend={legendItems(layers, rasters)}
          deck={{
            slides: now.slides,
            markers: [...now.markers.values()],
            drawings: [...now.drawings.values()],
            layers: now.layers,
            rasterLayers: now.rasters,
          }}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}

/** A printer, drawn (no icon font): the button's words show on a wide screen only. */
const PrinterIcon = () => (
  <svg class="print-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
    <path
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linejoin="round"
      d="M6 9V3h12v6M6 18H4a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1h16a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1h-2M6 14h12v7H6z"
    />
  </svg>
);
