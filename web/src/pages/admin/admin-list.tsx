import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../../i18n/index.js';
import type { Attempt } from '../../ui/notices';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { TextField } from '../../ui/fields';

/**
 * What the admin sections share: an action's outcome (its failure or what it did, shown with
 * `<Outcome>`), a search form, a list read a page at a time, and the table of a list.
 */

/** `act(work)` runs an action that answers what it did (empty when the person changed their mind). */
export function useAdminActions(afterEach?: () => unknown) {
  const { error, attempt } = useInlineError();
  const [done, setDone] = useState('');
  const act = (work: () => Promise<string>) => {
    setDone('');
    void attempt(work).then(async (message) => {
      if (!message) return;
      setDone(message);
      await afterEach?.();
    });
  };
  return { error, attempt, done, act };
}

/** An action's failure, or what it did. */
export function Outcome({ error, done }: { error: string; done: string }) {
  return (
    <>
      <InlineError message={error} />
      {done && <p role="status">{done}</p>}
    </>
  );
}

/** A search by words (`q`): the list is read again when it is sent. */
function SearchForm({
  label,
  value,
  onInput,
  onSearch,
}: {
  label: string;
  value: string;
  onInput: (q: string) => void;
  onSearch: () => void;
}) {
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch();
      }}
    >
      <TextField label={label} type="search" value={value} onInput={onInput} maxLength={200} />
      <button type="submit">{t('admin:search')}</button>
    </form>
  );
}

/** A page of a list and the cursor of the next one (null at the end). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * A list the service gives a page at a time, searched by `q`: `load()` reads its first page,
 * `load(next)` adds the next one (each through `attempt`, which shows a failure).
 */
export function usePagedList<T>(attempt: Attempt, read: (query: { q?: string; after?: string }) => Promise<Page<T>>) {
  const [q, setQ] = useState('');
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const load = (after?: string) =>
    attempt(async () => {
      const page = await read({ ...(q.trim() && { q: q.trim() }), ...(after && { after }) });
      setItems((shown) => (after ? [...(shown ?? []), ...page.items] : page.items));
      setNext(page.next);
    });
  return { q, setQ, items, setItems, next, load };
}

type PagedList<T> = ReturnType<typeof usePagedList<T>>;

/**
 * A searched list a page at a time: the search form, the last action's outcome, the table, and
 * the button that reads the next page (`more` its words).
 */
export function SearchedTable<T>({
  search,
  list,
  more,
  error,
  done,
  ...table
}: Omit<TableProps<T>, 'items'> & { search: string; list: PagedList<T>; more: string; error: string; done: string }) {
  return (
    <>
      <SearchForm label={search} value={list.q} onInput={list.setQ} onSearch={() => void list.load()} />
      <Outcome error={error} done={done} />
      <AdminTable items={list.items} {...table} />
      {list.next && (
        <button type="button" onClick={() => void list.load(list.next!)}>
          {more}
        </button>
      )}
    </>
  );
}

interface TableProps<T> {
  label: string;
  columns: string[];
  items: T[] | null;
  empty: ComponentChildren;
  row: (item: T) => ComponentChildren;
}

/** A list as a table (each cell names its column on a phone), or its state while there is none. */
export function AdminTable<T>({ label, columns, items, empty, row }: TableProps<T>) {
  if (items === null) return <p>{t('common:loading')}</p>;
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <div class="table-scroll">
      <table class="admin-table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column}>{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{items.map(row)}</tbody>
      </table>
    </div>
  );
}
