import { useEffect } from 'preact/hooks';
import { useStore } from '../store';
import { readPast } from './actions/history';
import { type RoomContextValue, useRoom } from './room-context';
import { formatDateTime } from './timeline';
import { showsPast } from './time-view';
import { UndoRefused } from './undo';
import { typing } from './keyboard';

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
          <button type="button" onClick={() => runUndo(room, 'undo')} title="Undo your last change (Ctrl+Z)">
            Undo
          </button>
          <button
            type="button"
            onClick={() => runUndo(room, 'redo')}
            disabled={redoable === 0}
            title="Redo (Ctrl+Shift+Z)"
          >
            Redo
          </button>
        </div>
      )}
      {view.mode === 'future' && (
        <section class="past-view" role="status" aria-label="Events ahead">
          <strong>Events ahead</strong>: the map shows only the markers whose event date is still to come.{' '}
          <button type="button" onClick={() => timeView.set({ mode: 'current' })}>
            Show all
          </button>
        </section>
      )}
      {view.mode === 'past' && view.at !== null && settings && (
        <section class="past-view" role="status" aria-label="Past view" data-testid="past-view">
          <strong>Past view</strong>: the room as it was on {formatDateTime(view.at, settings.dateTimeFormat)}. Editing
          is off.{' '}
          <button type="button" onClick={() => showMoment(room, null)}>
            Back to now
          </button>
          {view.content?.at !== view.at ? (
            <p>Loading…</p>
          ) : (
            <details>
              <summary>
                {view.content.markers.size} {view.content.markers.size === 1 ? 'marker' : 'markers'},{' '}
                {view.content.drawings.size} {view.content.drawings.size === 1 ? 'drawing' : 'drawings'}
                {!view.content.complete && ' (imported objects may be missing)'}
              </summary>
              <ul data-testid="past-markers">
                {[...view.content.markers.values()].map((m) => (
                  <li key={m.id}>
                    {m.title ?? 'Untitled'} ({m.latitude?.toFixed(5)}, {m.longitude?.toFixed(5)})
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

/** Runs an undo or redo and says what came of it. */
async function runUndo(room: RoomContextValue, which: 'undo' | 'redo') {
  try {
    room.notify(await room.undo[which]());
  } catch (error) {
    room.notify(error instanceof UndoRefused ? error.message : `Not ${which}ne: ${(error as Error).message}`, 'error');
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
