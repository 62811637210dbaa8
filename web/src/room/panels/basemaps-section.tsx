import { useState } from 'preact/hooks';
import { useStore } from '../../store';
import { setRoomBasemaps } from '../actions/room';
import { useRoom } from '../room-context';
import type { RoomBasemap } from '../../map/room-basemaps';
import { attributesOf, fieldLimits } from '../../ui/limits';
import { SelectField, TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

const LIMITS = fieldLimits('PATCH /api/rooms/{roomId}/basemaps', 'basemaps');
const field = (name: keyof RoomBasemap) => attributesOf(LIMITS.items?.fields?.[name]);
const MAX = LIMITS.maxItems ?? 20;

type Kind = RoomBasemap['type'];
const kinds = (): [Kind, string][] => [
  ['xyz', t('settings:basemaps.types.xyz')],
  ['wmts', t('settings:basemaps.types.wmts')],
  ['wms', t('settings:basemaps.types.wms')],
];
/** What an address of each kind looks like (the same in every language). */
const EXAMPLES: Record<Kind, string> = {
  xyz: 'https://tiles.example.org/{z}/{x}/{y}.png',
  wmts: 'https://example.org/wmts/layer/default/3857/{TileMatrix}/{TileRow}/{TileCol}.png',
  wms: 'https://example.org/wms',
};

/** What the address must hold, in words. */
function urlHint(kind: Kind): string {
  switch (kind) {
    case 'xyz':
      return t('settings:basemaps.urlHint.xyz');
    case 'wmts':
      return t('settings:basemaps.urlHint.wmts');
    case 'wms':
      return t('settings:basemaps.urlHint.wms');
  }
}

const EMPTY = { name: '', type: 'xyz' as Kind, url: '', attribution: '', layers: '' };

/** An id for a new base map from its name, not one of `taken` (the service checks the pattern). */
function newId(name: string, taken: readonly RoomBasemap[]): string {
  const stem =
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || 'map';
  const ids = new Set(taken.map((b) => b.id));
  let id = stem;
  for (let n = 2; ids.has(id); n++) id = `${stem}-${n}`;
  return id;
}

/**
 * The room's own base maps (owner): XYZ, WMTS or WMS addresses with their attribution, which
 * every member finds in the map's base-map menu. The whole list is saved each time.
 */
export function BasemapsSection() {
  const { model, attempt } = useRoom();
  const basemaps = useStore(model)!.room.basemaps ?? [];
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState(EMPTY);
  const set = (change: Partial<typeof EMPTY>) => setDraft({ ...draft, ...change });
  /** True once saved (undefined when refused: the page says why). */
  const save = (list: RoomBasemap[], done: string) =>
    attempt(async () => {
      await setRoomBasemaps(model, list);
      return true;
    }, done);
  const submit = async (event: Event) => {
    event.preventDefault();
    const basemap: RoomBasemap = {
      id: editing ?? newId(draft.name, basemaps),
      name: draft.name.trim(),
      type: draft.type,
      url: draft.url.trim(),
      attribution: draft.attribution.trim(),
      ...(draft.type === 'wms' && { layers: draft.layers.trim() }),
    };
    const list = editing ? basemaps.map((b) => (b.id === editing ? basemap : b)) : [...basemaps, basemap];
    const saved = await save(list, t('settings:basemaps.saved', { name: basemap.name }));
    if (saved === undefined) return;
    setEditing(null);
    setDraft(EMPTY);
  };
  const edit = (basemap: RoomBasemap) => {
    setEditing(basemap.id);
    setDraft({ ...EMPTY, ...basemap, layers: basemap.layers ?? '' });
  };
  const remove = (basemap: RoomBasemap) =>
    save(
      basemaps.filter((b) => b.id !== basemap.id),
      t('settings:basemaps.removed', { name: basemap.name }),
    );
  const full = !editing && basemaps.length >= MAX;
  return (
    <section aria-labelledby="room-basemaps">
      <h3 id="room-basemaps">{t('settings:basemaps.title')}</h3>
      <p class="muted">{t('settings:basemaps.hint')}</p>
      <ul class="list" data-testid="room-basemaps">
        {basemaps.map((basemap) => (
          <li key={basemap.id}>
            <span>
              {basemap.name} <span class="muted">{basemap.type.toUpperCase()}</span>
            </span>
            <span class="row">
              <button
                type="button"
                class="link"
                onClick={() => edit(basemap)}
                aria-label={t('settings:basemaps.editNamed', { name: basemap.name })}
              >
                {t('settings:basemaps.edit')}
              </button>
              <button
                type="button"
                class="link"
                onClick={() => remove(basemap)}
                aria-label={t('settings:basemaps.removeNamed', { name: basemap.name })}
              >
                {t('settings:basemaps.remove')}
              </button>
            </span>
          </li>
        ))}
      </ul>
      {full ? (
        <p class="muted">{t('settings:basemaps.full', { max: MAX })}</p>
      ) : (
        <form
          class="form"
          onSubmit={submit}
          aria-label={editing ? t('settings:basemaps.editForm') : t('settings:basemaps.addForm')}
        >
          <TextField
            label={t('settings:basemaps.name')}
            value={draft.name}
            onInput={(name) => set({ name })}
            required
            {...field('name')}
          />
          <SelectField
            label={t('settings:basemaps.type')}
            value={draft.type}
            options={kinds()}
            onChange={(type) => set({ type: type as Kind })}
          />
          <TextField
            label={t('settings:basemaps.url')}
            type="url"
            value={draft.url}
            onInput={(url) => set({ url })}
            placeholder={EXAMPLES[draft.type]}
            required
            {...field('url')}
            pattern={undefined}
          />
          <p class="muted">{urlHint(draft.type)}</p>
          {draft.type === 'wms' && (
            <TextField
              label={t('settings:basemaps.layers')}
              value={draft.layers}
              onInput={(layers) => set({ layers })}
              required
              {...field('layers')}
            />
          )}
          <TextField
            label={t('settings:basemaps.attribution')}
            value={draft.attribution}
            onInput={(attribution) => set({ attribution })}
            placeholder={t('settings:basemaps.attributionPlaceholder')}
            {...field('attribution')}
          />
          <div class="row">
            <button type="submit">{editing ? t('settings:basemaps.saveEdit') : t('settings:basemaps.add')}</button>
            {editing && (
              <button
                type="button"
                onClick={() => {
                  setEditing(null);
                  setDraft(EMPTY);
                }}
              >
                {t('settings:basemaps.cancel')}
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
