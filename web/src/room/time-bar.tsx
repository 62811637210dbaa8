import { useEffect } from 'preact/hooks';
import { useStore } from '../store';
import { readPast } from './actions/history';
import { type RoomContextValue, useRoom } from './room-context';
import { formatDateTime } from './timeline';
import { showsPast } from './time-view';
import { UndoRefused } from './undo';
import { typing } from './keyboard';
import { t } from '../i18n/index.js';

/**
 * Over the map: undo and redo of the person's own changes (also Ctrl+Z and Ctrl+Shift+Z), and,
 * while the map shows a past moment, a banner saying so with what it shows and a way back.
 */
export function TimeBar() {
  const room = useRoom();
  const { model, timeView, canEdit } = room;
  const state = useStore(model);
  const view = useStore(timeView);
  const redoable = useStore(room.undo.redoable);
  const settings = state?.room.timelineSettings;
  // The slider starts in the room's mode (`sliderMode`), once the room has loaded.
  useEffect(() => {
    if (settings && timeView.get().mode === 'current' && settings.sliderMode !== 'current')
      timeView.set(
        settings.sliderMode === 'past' ? { mode: 'past', at: null, content: null } : { mode: 'future', until: null },
      );
  }, [settings !== undefined]);
  const past = showsPast(view);
  useEffect(() => (canEdit && !past ? bindUndoKeys(room) : undefined), [canEdit, past]);
  return (
    <div class="time-bar">
      {canEdit && !past && (
        <div class="undo-buttons">
          <button type="button" onClick={() => runUndo(room, 'undo')} title={t('room:timeBar.undoTitle')}>
            {t('room:timeBar.undo')}
          </button>
          <button
            type="button"
            onClick={() => runUndo(room, 'redo')}
            disabled={redoable === 0}
            title={t('room:timeBar.redoTitle')}
          >
            {t('room:timeBar.redo')}
          </button>
        </div>
      )}
      {view.mode === 'future' && (
        <section class="past-view" role="status" aria-label={t('room:timeBar.ahead')}>
          <strong>{t('room:timeBar.ahead')}</strong>
          {t('room:timeBar.aheadText')}{' '}
          <button type="button" onClick={() => timeView.set({ mode: 'current' })}>
            {t('room:timeBar.showAll')}
          </button>
        </section>
      )}
      {view.mode === 'past' && view.at !== null && settings && (
        <section class="past-view" role="status" aria-label={t('room:timeBar.past')} data-testid="past-view">
          <strong>{t('room:timeBar.past')}</strong>
          {t('room:timeBar.pastText', { date: formatDateTime(view.at, settings.dateTimeFormat) })}{' '}
          <button type="button" onClick={() => showMoment(room, null)}>
            {t('room:timeBar.backToNow')}
          </button>
          {view.content?.at !== view.at ? (
            <p>{t('common:loading')}</p>
          ) : (
            <details>
              <summary>
                {pastContent(view.content.markers.size, view.content.drawings.size, view.content.complete)}
              </summary>
              <ul data-testid="past-markers">
                {[...view.content.markers.values()].map((m) => (
                  <li key={m.id}>
                    {t('room:timeBar.pastMarker', {
                      title: m.title ?? t('room:timeBar.untitled'),
                      lat: m.latitude?.toFixed(5),
                      lon: m.longitude?.toFixed(5),
                    })}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </section>
      )}
    </div>
  );
}

/** What a past view holds: its markers and drawings counted. */
function pastContent(markerCount: number, drawingCount: number, complete: boolean) {
  const counts = {
    markers: t('room:timeBar.markers', { count: markerCount }),
    drawings: t('room:timeBar.drawings', { count: drawingCount }),
  };
  return complete ? t('room:timeBar.content', counts) : t('room:timeBar.contentIncomplete', counts);
}

/** Runs an undo or redo and says what came of it. */
async function runUndo(room: RoomContextValue, which: 'undo' | 'redo') {
  try {
    room.notify(await room.undo[which]());
  } catch (error) {
    const words = (error as Error).message;
    const notDone =
      which === 'undo' ? t('room:timeBar.notUndone', { error: words }) : t('room:timeBar.notRedone', { error: words });
    room.notify(error instanceof UndoRefused ? words : notDone, 'error');
  }
}

/** Ctrl+Z (Cmd+Z) undoes, Ctrl+Shift+Z and Ctrl+Y redo, except in a text field (its own undo). */
function bindUndoKeys(room: RoomContextValue) {
  const onKey = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    if (typing(event.target)) return;
    const key = event.key.toLowerCase();
    if (key === 'z' || key === 'y') {
      event.preventDefault();
      void runUndo(room, key === 'z' && !event.shiftKey ? 'undo' : 'redo');
    }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

let latest = 0;

/**
 * Shows the room at a past moment (null: the room now), with the slider in its past mode:
 * nothing is selected meanwhile, and an answer overtaken by a newer moment is dropped.
 */
export async function showMoment(room: RoomContextValue, at: number | null) {
  const asked = ++latest;
  const view = room.timeView.get();
  if (at === null) {
    room.timeView.set({ mode: 'past', at: null, content: null });
    return;
  }
  room.selection.set(null);
  room.mode.set('browse');
  room.timeView.set({ mode: 'past', at, content: view.mode === 'past' ? view.content : null });
  const content = await room.attempt(() => readPast(room.model, at));
  const now = room.timeView.get();
  if (content && asked === latest && now.mode === 'past' && now.at === at) room.timeView.set({ ...now, content });
}
