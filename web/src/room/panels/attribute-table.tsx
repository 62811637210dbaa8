import { useEffect, useRef, useState } from 'preact/hooks';
import type { Layer } from '../../api/types';
import { type AttributesPage, type AttributesView, readAttributes } from '../actions/features';
import { useRoom } from '../room-context';
import { useStore } from '../../store';
import { showsPast } from '../time-view';
import { AttributeCell } from './attribute-cell';
import { t } from '../../i18n/index.js';

const CELL_CHARS = 40;
/** How long typing in the filter pauses before the table asks for the rows. */
const FILTER_WAIT_MS = 300;

const cellText = (value: unknown) => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS)}…` : text;
};

/** The page with a row's properties as saved. */
const withRow = (page: AttributesPage, id: number, properties: Record<string, unknown>): AttributesPage => ({
  ...page,
  rows: page.rows.map((row) => (row.id === id ? { ...row, properties } : row)),
});

/**
 * A layer's attribute table over the map: pages of 50 features (more on demand, keyset paged by
 * the service), sorted by a column (click its header; again for the other order), filtered by a
 * text as it is typed (`q`: the room's `table` store holds it, so that the search box can open
 * the table filtered; the filter goes through the whole layer, page after page); a row click zooms to
 * its feature and shows its attributes; an editor's click in a cell edits it (attribute-cell.tsx).
 */
export function AttributeTable({
  layer,
  q,
  onFilter,
  onClose,
}: {
  layer: Layer;
  q: string;
  onFilter: (q: string) => void;
  onClose: () => void;
}) {
  const { map, selection, attempt, canEdit, timeView } = useRoom();
  // An editor changes a cell of a field of the layer's (not a json one), in the present view.
  const past = showsPast(useStore(timeView));
  const editable = (name: string) =>
    canEdit && !past ? layer.fields.findIndex((f) => f.name === name && f.type !== 'json') : -1;
  const [view, setView] = useState<AttributesView>({ sort: 'id', order: 'asc', q });
  useEffect(() => {
    if (q !== view.q) setView({ ...view, q });
  }, [q]);
  const [page, setPage] = useState<AttributesPage | null>(null);
  // The view of the rows shown: a refused sort (a reader's sort by a field without an index on a
  // big layer, said in the notice) goes back to it, so the header shows the order of the rows.
  const [shown, setShown] = useState(view);
  // Only the latest read is shown: an answer for an earlier filter or order that comes late is dropped.
  const asked = useRef(0);
  useEffect(() => {
    const n = ++asked.current;
    void attempt(() => readAttributes(layer.id, view)).then((first) => {
      if (n !== asked.current) return;
      if (!first) return setView(shown);
      setPage(first);
      setShown(view);
    });
  }, [layer.id, view]);
  // While a next page is read, More waits (a second click would append the same page twice).
  const [reading, setReading] = useState(false);
  const more = async () => {
    if (!page?.next) return;
    const n = asked.current;
    setReading(true);
    const next = await attempt(() => readAttributes(layer.id, view, page.next!));
    setReading(false);
    if (next && n === asked.current) setPage({ ...next, rows: [...page.rows, ...next.rows] });
  };
  // The filter applies as the person types, once the typing pauses (Enter: at once).
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  useEffect(() => {
    if (typed === q) return;
    const timer = setTimeout(() => onFilter(typed), FILTER_WAIT_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const sortBy = (sort: string) =>
    setView({ ...view, sort, order: view.sort === sort && view.order === 'asc' ? 'desc' : 'asc' });
  const show = (row: AttributesPage['rows'][number]) => {
    const [w, s, e, n] = row.bbox as [number, number, number, number];
    map.get()?.fitBounds([w, s, e, n], { padding: 80, maxZoom: 17 });
    selection.set({ kind: 'layer', id: layer.id, featureId: row.id });
  };
  const columns = ['id', ...(page?.fields.map((f) => f.name) ?? [])];
  const arrow = (column: string) => (view.sort === column ? (view.order === 'asc' ? ' ▲' : ' ▼') : '');
  return (
    <section class="attribute-table" aria-label={t('layers:table.label', { name: layer.name })}>
      <header class="row">
        <strong>{layer.name}</strong>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            onFilter(typed);
          }}
        >
          <input
            name="q"
            type="search"
            aria-label={t('layers:table.filter')}
            placeholder={t('layers:table.filterPlaceholder')}
            value={typed}
            onInput={(e) => setTyped(e.currentTarget.value)}
          />
        </form>
        <span class="muted">{t('layers:table.features', { count: layer.featureCount })}</span>
        <button type="button" class="close" aria-label={t('layers:table.close')} onClick={onClose}>
          ×
        </button>
      </header>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              {columns.map((column) => (
                <th
                  key={column}
                  scope="col"
                  aria-sort={view.sort === column ? (view.order === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" class="link" onClick={() => sortBy(column)}>
                    {column}
                    {arrow(column)}
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page?.rows.map((row) => (
              <tr key={row.id} onClick={() => show(row)} tabIndex={0} onKeyDown={(e) => e.key === 'Enter' && show(row)}>
                <td>{row.id}</td>
                {page.fields.map((f) => {
                  const index = editable(f.name);
                  if (index < 0) return <td key={f.name}>{cellText(row.properties[f.name])}</td>;
                  return (
                    <AttributeCell
                      key={f.name}
                      layer={layer}
                      field={layer.fields[index]!}
                      index={index}
                      featureId={row.id}
                      text={cellText(row.properties[f.name])}
                      onSaved={(properties) => setPage((held) => held && withRow(held, row.id, properties))}
                    />
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
        {page && page.rows.length === 0 && !page.next && <p class="muted">{t('layers:table.noMatch')}</p>}
        {/* A filtered page ends where the service's window did: the rest of the layer is a More away. */}
        {page?.next && view.q && page.rows.length === 0 && <p class="muted">{t('layers:table.readOn')}</p>}
        {page?.next && (
          <button type="button" disabled={reading} onClick={() => void more()}>
            {t('layers:table.more')}
          </button>
        )}
      </div>
    </section>
  );
}
