import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../store';
import { type Mode, useRoom } from './room-context';
import { t } from '../i18n/index.js';

/** Where the side panel is a bottom sheet (styles.css has the same width). */
export const PHONE = '(max-width: 599px)';

/** The side panel's sizes on a phone: its tabs only, half the room, or all of it. */
export type Sheet = 'peek' | 'half' | 'full';
const SIZES: Sheet[] = ['peek', 'half', 'full'];
const SHOWN: Record<Sheet, () => string> = {
  peek: () => t('room:sheet.peek'),
  half: () => t('room:sheet.half'),
  full: () => t('room:sheet.full'),
};
/** A swipe on the handle this long (px) moves the sheet a size; a shorter one is a tap. */
const SWIPE_PX = 24;

const larger = (a: Sheet, b: Sheet) => (SIZES.indexOf(a) >= SIZES.indexOf(b) ? a : b);

/**
 * The side panel's size where it is a bottom sheet over the map (a phone, below 600 px; see
 * styles.css; elsewhere the size is kept but not shown). It opens at its tabs; a tab or a
 * selection opens it to half; it steps down to its tabs while the map is worked on (placing a
 * marker, drawing, measuring) and comes back after, at least to half when something is selected.
 */
export function useSheet() {
  const { mode, selection } = useRoom();
  const [sheet, setSheet] = useState<Sheet>('peek');
  const now = useRef(sheet);
  now.current = sheet;
  const beforeMode = useRef<Sheet | null>(null);
  useEffect(
    () =>
      mode.subscribe((current) => {
        // Reshaping keeps the sheet: its Save and Cancel are there.
        if (current === 'reshape') return;
        if (current !== 'browse' && beforeMode.current === null) {
          beforeMode.current = now.current;
          setSheet('peek');
        } else if (current === 'browse' && beforeMode.current !== null) {
          setSheet(selection.get() ? larger(beforeMode.current, 'half') : beforeMode.current);
          beforeMode.current = null;
        }
      }),
    [mode],
  );
  useEffect(
    () =>
      selection.subscribe((selected) => {
        if (selected && mode.get() === 'browse') setSheet((size) => larger(size, 'half'));
      }),
    [selection],
  );
  return [sheet, setSheet] as const;
}

const WORKING: Record<Exclude<Mode, 'browse'>, () => string> = {
  'add-marker': () => t('room:sheet.placeMarker'),
  'move-marker': () => t('room:sheet.placeMarker'),
  draw: () => t('room:sheet.draw'),
  reshape: () => t('room:sheet.reshape'),
};

/**
 * The sheet's top row: a handle that a tap or a swipe makes larger or smaller; while the map is
 * worked on, what to do there and Cancel instead (Escape does the same).
 */
export function SheetHandle({ sheet, onChange }: { sheet: Sheet; onChange: (size: Sheet) => void }) {
  const { mode } = useRoom();
  const working = useStore(mode);
  const pressed = useRef<number | null>(null);
  const step = (by: number) => onChange(SIZES[Math.max(0, Math.min(SIZES.length - 1, SIZES.indexOf(sheet) + by))]!);
  if (working !== 'browse' && working !== 'reshape')
    return (
      <div class="sheet-top" role="status" data-testid="sheet-working">
        <span>{WORKING[working]()}</span>
        <button type="button" onClick={() => mode.set('browse')}>
          {t('common:cancel')}
        </button>
      </div>
    );
  const next = sheet === 'full' ? 'peek' : SIZES[SIZES.indexOf(sheet) + 1]!;
  return (
    <div class="sheet-top">
      <button
        type="button"
        class="sheet-handle"
        data-testid="sheet-handle"
        data-sheet={sheet}
        aria-label={t('room:sheet.handle', { shown: SHOWN[sheet](), next: SHOWN[next]() })}
        // A finger or a mouse: a swipe moves it a size, a tap makes it the next size.
        onPointerDown={(event) => {
          pressed.current = event.clientY;
          event.currentTarget.setPointerCapture(event.pointerId);
        }}
        onPointerUp={(event) => {
          if (pressed.current === null) return;
          const by = event.clientY - pressed.current;
          pressed.current = null;
          if (Math.abs(by) < SWIPE_PX) onChange(next);
          else step(by < 0 ? 1 : -1);
        }}
        onPointerCancel={() => {
          pressed.current = null;
        }}
        // The keyboard (Enter, Space): a click with no pointer behind it.
        onClick={(event) => event.detail === 0 && onChange(next)}
      />
    </div>
  );
}
