import { useState } from 'preact/hooks';
import type { Layer } from '../../api/types';
import { formatDateTime, t } from '../../i18n/index.js';
import { addRemoteLayer, refreshRemoteLayer, setRefreshMinutes } from '../actions/remote-layers';
import { useRoom } from '../room-context';
import { layerIds, zoomToNewLayer } from '../zoom-to-content';

/** The schedules offered, in minutes (null: only when asked). */
const SCHEDULES = [null, 15, 60, 360, 1440] as const;

function ScheduleSelect({ value, onChange }: { value: number | null; onChange: (minutes: number | null) => void }) {
  return (
    <label>
      {t('layers:remote.schedule')}
      <select
        name="refreshMinutes"
        value={value === null ? '' : String(value)}
        onChange={(e) => onChange(e.currentTarget.value === '' ? null : Number(e.currentTarget.value))}
      >
        {SCHEDULES.map((minutes) => (
          <option key={String(minutes)} value={minutes === null ? '' : String(minutes)}>
            {minutes === null ? t('layers:remote.whenAsked') : t(`layers:remote.every${minutes}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Adds a layer read from an address (a file, an OGC API Features collection or a WFS), kept current on a schedule. */
export function RemoteLayerForm() {
  const room = useRoom();
  const { model, attempt, notify } = room;
  const [busy, setBusy] = useState(false);
  const [minutes, setMinutes] = useState<number | null>(60);
  const submit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const url = String(data.get('url') ?? '').trim();
    const name = String(data.get('name') ?? '').trim() || new URL(url).hostname;
    const known = layerIds(model.get());
    setBusy(true);
    const layerId = await attempt(() => addRemoteLayer(model, { url, name, refreshMinutes: minutes }));
    setBusy(false);
    if (!layerId) return;
    form.reset();
    notify(t('layers:upload.onTheMap', { name }));
    zoomToNewLayer(room, known);
  };
  return (
    <details class="upload">
      <summary>{t('layers:remote.title')}</summary>
      <form
        aria-label={t('layers:remote.title')}
        onSubmit={(e) => {
          e.preventDefault();
          void submit(e.currentTarget);
        }}
      >
        <p class="muted">{t('layers:remote.formats')}</p>
        <label>
          {t('layers:remote.url')}
          <input name="url" type="url" required disabled={busy} />
        </label>
        <label>
          {t('layers:remote.name')}
          <input name="name" maxLength={200} disabled={busy} />
        </label>
        <ScheduleSelect value={minutes} onChange={setMinutes} />
        <button type="submit" disabled={busy}>
          {busy ? t('layers:remote.reading') : t('layers:remote.add')}
        </button>
      </form>
    </details>
  );
}

/** Where a remote layer comes from, how its last read went, and (for editors) its schedule and a refresh now. */
export function LayerSource({ layer }: { layer: Layer }) {
  const { model, canEdit, attempt, notify } = useRoom();
  const [busy, setBusy] = useState(false);
  const source = layer.source;
  if (!source) return null;
  const refresh = async () => {
    setBusy(true);
    const counts = await attempt(() => refreshRemoteLayer(model, layer.id));
    setBusy(false);
    if (counts)
      notify(
        counts.added + counts.changed + counts.removed === 0
          ? t('layers:remote.unchanged')
          : t('layers:remote.refreshed', { ...counts }),
      );
  };
  return (
    <div class="layer-source">
      <p class="muted">
        {t('layers:remote.from', { host: hostOf(source.url) })}
        {source.lastRefreshAt !== null &&
          ` · ${t('layers:remote.readAt', { when: formatDateTime(source.lastRefreshAt) })}`}
      </p>
      {source.lastError && <p role="alert">{t('layers:remote.lastError', { reason: source.lastError })}</p>}
      {canEdit && (
        <div class="row">
          <ScheduleSelect
            value={source.refreshMinutes}
            onChange={(minutes) => void attempt(() => setRefreshMinutes(model, layer.id, minutes))}
          />
          <button type="button" class="link" disabled={busy} onClick={refresh}>
            {busy ? t('layers:remote.reading') : t('layers:remote.refreshNow')}
          </button>
        </div>
      )}
    </div>
  );
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};
