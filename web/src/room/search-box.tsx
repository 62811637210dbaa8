import { useEffect, useRef, useState } from 'preact/hooks';
import type { PartialLayer, Place, SearchResult } from '../api/types';
import { InlineError, useInlineError } from '../ui/inline-error';
import { findPlaces, placesOffered, searchRoom } from './actions/search';
import { type Choice, choicesOf, goTo, type Group, groupLabel, removePin } from './find';
import { useRoom } from './room-context';
import { parseCoordinates } from '../map/coordinates';
import { t } from '../i18n/index.js';

/** How long typing pauses before the service is asked. */
const DEBOUNCE_MS = 250;

interface Found {
  q: string;
  results: SearchResult[];
  partialLayers: PartialLayer[];
  places: Place[];
}
const NOTHING: Found = { q: '', results: [], partialLayers: [], places: [] };

/**
 * The room's search box (in the header): markers, drawings and layer features holding the text,
 * a position typed in decimal or DMS, and places when the service has a geocoder; grouped.
 * Enter goes to the highlighted (at first the first) choice, arrows move, Esc closes.
 */
export function SearchBox() {
  const room = useRoom();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [found, setFound] = useState<Found>(NOTHING);
  const [active, setActive] = useState(0);
  const things = useInlineError();
  const places = useInlineError();
  const asked = useRef(0);

  /** The room's and the geocoder's answers for `q`; shown unless a later search was started meanwhile. */
  const search = async (q: string): Promise<Found> => {
    const n = ++asked.current;
    const wantsPlaces = placesOffered() && !parseCoordinates(q);
    const [inRoom, named] = await Promise.all([
      things.attempt(() => searchRoom(room.model, q)),
      wantsPlaces ? places.attempt(() => findPlaces(q)) : undefined,
    ]);
    const answer = {
      q,
      results: inRoom?.results ?? [],
      partialLayers: inRoom?.partialLayers ?? [],
      places: named ?? [],
    };
    if (n === asked.current) {
      setFound(answer);
      setActive(0);
    }
    return answer;
  };

  useEffect(() => {
    const q = text.trim();
    if (!q) {
      asked.current++;
      setFound(NOTHING);
      return;
    }
    const timer = setTimeout(() => void search(q), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const q = text.trim();
  // A position typed is offered at once; the room's things once the service has answered.
  const now = found.q === q ? found : NOTHING;
  const choices = q ? choicesOf(q, now.results, now.places, now.partialLayers) : [];
  const choose = (choice: Choice | undefined) => {
    if (!choice) return;
    goTo(choice.target, room);
    setOpen(false);
  };
  const onKey = async (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      setOpen(false);
      return;
    }
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      setOpen(true);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((i) => (choices.length ? (i + step + choices.length) % choices.length : 0));
      return;
    }
    if (event.key !== 'Enter' || !q) return;
    event.preventDefault();
    // Enter before the answer came: a position typed goes at once; else ask now, then go to the first choice.
    if (found.q === q || choices[0]?.group === 'Coordinates') {
      choose(choices[Math.min(active, choices.length - 1)]);
      return;
    }
    const answer = await search(q);
    choose(choicesOf(q, answer.results, answer.places, answer.partialLayers)[0]);
  };

  const shown = open && q !== '';
  const groups = [...new Set(choices.map((c) => c.group))] as Group[];
  const waiting = found.q !== q;
  return (
    <div class="search-box" role="search">
      <input
        type="text"
        // biome-ignore lint/a11y/noRedundantRoles: without a datalist (`list`), an input is a textbox, not a combobox
        role="combobox"
        list={undefined}
        aria-label={t('room:search.label')}
        placeholder={t('room:search.placeholder')}
        aria-expanded={shown}
        aria-controls="search-choices"
        aria-autocomplete="list"
        aria-activedescendant={shown && choices[active] ? `search-choice-${active}` : undefined}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setOpen(true);
          if (!e.currentTarget.value) removePin();
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => void onKey(e)}
      />
      {shown && (
        <div class="search-choices" id="search-choices" role="listbox" aria-label={t('room:search.results')}>
          {groups.map((group) => (
            <div key={group} role="group" aria-label={groupLabel(group)}>
              <div class="search-group" aria-hidden="true">
                {groupLabel(group)}
              </div>
              {choices.map((choice, i) =>
                choice.group === group ? (
                  <div
                    key={i}
                    id={`search-choice-${i}`}
                    role="option"
                    tabIndex={-1}
                    aria-selected={i === active}
                    class="search-choice"
                    // Chosen before the input's blur closes the list.
                    onMouseDown={(e) => {
                      e.preventDefault();
                      choose(choice);
                    }}
                    onMouseEnter={() => setActive(i)}
                  >
                    <span>{choice.label}</span>
                    {choice.detail && <span class="muted"> {choice.detail}</span>}
                  </div>
                ) : null,
              )}
            </div>
          ))}
          {!waiting && choices.length === 0 && !things.error && (
            <p class="muted search-note">{t('room:search.nothing')}</p>
          )}
          {waiting && <p class="muted search-note">{t('room:search.searching')}</p>}
          <InlineError message={things.error} />
          <InlineError message={places.error && t('room:search.placesError', { error: places.error })} />
        </div>
      )}
    </div>
  );
}
