import { useEffect, useState } from 'preact/hooks';
import { useModal } from '../ui/modal';
import { useRoom } from './room-context';
import { t } from '../i18n/index.js';

/** The room's keys, as the `?` dialog lists them (in the page's language, so made when shown). */
export const shortcutList = (): [keys: string, what: string][] => [
  ['?', t('room:shortcuts.help')],
  ['/', t('room:shortcuts.find')],
  ['p', t('print:shortcut')],
  [t('room:shortcuts.escapeKey'), t('room:shortcuts.escape')],
  [t('room:shortcuts.arrowKeys'), t('room:shortcuts.arrows')],
  [t('room:shortcuts.zoomKeys'), t('room:shortcuts.zoom')],
  [t('room:shortcuts.enterKey'), t('room:shortcuts.enter')],
  [t('room:shortcuts.tabKey'), t('room:shortcuts.tab')],
];

/** Whether a key pressed in `target` is typed text (a field's, not a shortcut): the room's keys leave it alone. */
export const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || target.closest('input, textarea, select') !== null);

/**
 * The room's keys on the whole page: Escape ends any mode (placing a marker, drawing, measuring:
 * the panel that began it ends its own part), `?` opens the shortcuts, `/` the search box, `p`
 * the print dialog.
 * Returns whether the shortcuts are shown, and their setter.
 */
export function useRoomKeys(): [boolean, (shown: boolean) => void] {
  const { mode } = useRoom();
  const [shortcuts, showShortcuts] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && mode.get() !== 'browse') {
        mode.set('browse');
        return;
      }
      if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === '?') {
        event.preventDefault();
        showShortcuts(true);
      } else if (event.key === '/') {
        event.preventDefault();
        document.querySelector<HTMLInputElement>('.search-box input')?.focus();
      } else if (event.key === 'p' && !document.querySelector('dialog[open]')) {
        // "Print / export" (room/print-button.tsx), as its button does.
        event.preventDefault();
        document.querySelector<HTMLButtonElement>('.print-button')?.click();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mode]);
  return [shortcuts, showShortcuts];
}

/** The shortcuts, as a modal dialog (Escape or Close closes it, and the focus goes back where it was). */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const { dialog, close } = useModal(onClose);
  return (
    <dialog
      ref={dialog}
      class="shortcuts-dialog"
      aria-labelledby="shortcuts-title"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id="shortcuts-title">{t('room:shortcuts.title')}</h2>
      <dl>
        {shortcutList().map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={close}>
        {t('common:close')}
      </button>
    </dialog>
  );
}

/** The page's first control, shown when it has the focus: straight to the map, past the header. */
export function SkipToMap() {
  const { map } = useRoom();
  return (
    <button type="button" class="skip-link" onClick={() => map.get()?.getCanvas().focus()}>
      {t('room:skipToMap')}
    </button>
  );
}

/** What placing a marker asks of the person, by pointer or by keyboard (room/placing.ts). */
export function PlacingNote() {
  return (
    <p class="note" role="status" data-testid="placing-note">
      {t('room:placingNote')}
    </p>
  );
}
