import { ApiError } from '../api/client';
import type { HistoryEvent } from '../api/types';
import { Store } from '../store';
import { deleteComment, deleteReply } from './actions/comments';
import { deleteDrawing } from './actions/drawings';
import { deleteFeature } from './actions/features';
import { readHistory, restoreEntry } from './actions/history';
import { deleteMarker } from './actions/markers';
import { deleteSlide } from './actions/slides';
import type { RoomModel } from './room-model';
import { actorName, describeChange, isRestorable, objectLabel } from './timeline';
import { t } from '../i18n/index.js';

/** An undo or redo that was not done, and why (someone else changed the object since). */
export class UndoRefused extends Error {}

/** How many of the newest changes an undo looks through for the person's own. */
const RECENT = 200;

/**
 * Undo and redo of the person's own changes made since the page opened, built on the history
 * and its restore route (docs/decisions.md, "Undo in the page"): the undo of a create deletes,
 * of a delete restores the `*.deleted` entry, of an edit restores the object's previous entry,
 * each only if nobody else changed the object since (`ifLatestVersion`); a redo undoes the undo.
 */
export class UndoHistory {
  /** How many undone changes can be redone. */
  readonly redoable = new Store(0);
  /** Entries undone, refused, or made by an undo: never undone (again). */
  private readonly skip = new Set<string>();
  /** Entries made by an undo or a redo: not a new change of the person's. */
  private readonly made = new Set<string>();
  private readonly redos: { undone: HistoryEvent; by: HistoryEvent }[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** The room's version when the page loaded it: older changes are not undone. */
  private opened: number | undefined;

  constructor(
    private readonly model: RoomModel,
    private readonly me: () => string | null,
  ) {
    this.opened = model.get()?.version;
    const stop = model.subscribe((state) => {
      if (state && this.opened === undefined) this.opened = state.version;
      if (this.opened !== undefined) stop();
    });
  }

  private since() {
    return this.opened ?? Number.POSITIVE_INFINITY;
  }

  /** Undoes the person's newest change not undone yet; resolves to what was done, in words. */
  undo(): Promise<string> {
    return this.serially(async () => {
      const recent = await readHistory(this.model, undefined, RECENT);
      const entry = recent.find((e) => this.byMe(e) && e.version > this.since() && !this.skip.has(e.id) && undoable(e));
      if (!entry) return t('room:undo.nothingToUndo');
      // A refused undo is not tried again: the next one goes on to the change before.
      this.skip.add(entry.id);
      const by = await this.revert(entry, recent).catch((error) => {
        if (!(error instanceof UndoRefused)) this.skip.delete(entry.id);
        throw error;
      });
      this.skip.add(by.id);
      this.made.add(by.id);
      this.redos.push({ undone: entry, by });
      this.redoable.set(this.redos.length);
      return t('room:undo.undone', { change: describeChange(entry) });
    });
  }

  /** Redoes the last undo, unless the person changed the room since. */
  redo(): Promise<string> {
    return this.serially(async () => {
      const item = this.redos[this.redos.length - 1];
      if (!item) return t('room:undo.nothingToRedo');
      const recent = await readHistory(this.model, undefined, RECENT);
      if (recent.some((e) => this.byMe(e) && e.version > item.by.version && !this.made.has(e.id))) {
        this.forgetRedos();
        return t('room:undo.changedSinceRedo');
      }
      this.redos.pop();
      this.redoable.set(this.redos.length);
      const again = await this.revert(item.by, recent);
      this.made.add(again.id);
      return t('room:undo.redone', { change: describeChange(item.undone) });
    });
  }

  private forgetRedos() {
    this.redos.length = 0;
    this.redoable.set(0);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private byMe(entry: HistoryEvent) {
    return entry.actor.kind === 'user' && entry.actor.id === this.me();
  }

  /** Takes back one entry's change; resolves to the entry of that taking back. */
  private async revert(entry: HistoryEvent, recent: HistoryEvent[]): Promise<HistoryEvent> {
    // Later entries of the object must all be the person's own (changes undone since).
    const later = recent.filter((e) => e.objectId === entry.objectId && e.version > entry.version);
    const other = later.find((e) => !this.byMe(e));
    if (other) throw refusal(other);
    const known = later[0]?.version ?? entry.version;
    const action = entry.type.slice(entry.type.lastIndexOf('.') + 1);
    try {
      if (action === 'created') await this.remove(entry, known);
      else if (action === 'deleted') await restoreEntry(this.model, entry.id, known);
      else {
        const previous = await this.previousOf(entry, recent);
        if (!previous) throw new UndoRefused(t('room:undo.noEarlierState', { object: objectLabel(entry) }));
        await restoreEntry(this.model, previous.id, known);
      }
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'changed_since')) throw error;
      const fresh = await readHistory(this.model, undefined, RECENT);
      const newer = fresh.find((e) => e.objectId === entry.objectId && e.version > known && !this.byMe(e));
      throw newer
        ? refusal(newer)
        : new UndoRefused(capitalised(t('room:undo.changedSince', { object: objectLabel(entry) })));
    }
    const after = await readHistory(this.model, undefined, RECENT);
    const made = after.find((e) => e.objectId === entry.objectId && this.byMe(e) && e.version > known);
    if (!made) throw new Error(t('room:undo.notInHistory'));
    return made;
  }

  /** The object's entry before this one, paging back through the history as far as needed. */
  private async previousOf(entry: HistoryEvent, recent: HistoryEvent[]): Promise<HistoryEvent | undefined> {
    let page = recent;
    for (;;) {
      const found = page.find((e) => e.objectId === entry.objectId && e.version < entry.version);
      if (found) return found;
      const oldest = page[page.length - 1]?.version;
      if (!oldest || oldest <= 1 || page.length === 0) return undefined;
      page = await readHistory(this.model, Math.min(oldest, entry.version), 500);
      if (page.length === 0) return undefined;
    }
  }

  /**
   * The undo of a create: the object is deleted, only if its newest entry is still `known`
   * (`ifLatestVersion`: the service refuses with 409 `changed_since` when someone changed it since).
   */
  private async remove(entry: HistoryEvent, known: number) {
    const id = entry.objectId;
    if (entry.objectType === 'marker') await deleteMarker(this.model, id, known);
    else if (entry.objectType === 'drawing') await deleteDrawing(this.model, id, known);
    else if (entry.objectType === 'slide') await deleteSlide(this.model, id, known);
    else if (entry.objectType === 'comment') await deleteComment(this.model, id, known);
    else if (entry.objectType === 'feature') {
      // A feature's deletion takes no `ifLatestVersion`: the later entries were checked above.
      const at = id.lastIndexOf(':');
      await deleteFeature(id.slice(0, at), Number(id.slice(at + 1)));
    } else {
      const comment = this.model.get()?.comments.find((c) => c.replies.some((r) => r.id === id));
      if (!comment) throw new UndoRefused(capitalised(t('room:undo.gone', { object: objectLabel(entry) })));
      await deleteReply(this.model, comment.id, id, known);
    }
  }
}

/** What an undo can take back: a restorable object's change, but not a layer's or raster's creation (no way back). */
function undoable(entry: HistoryEvent) {
  return (
    isRestorable(entry) && !(['layer', 'rasterLayer'].includes(entry.objectType) && entry.type.endsWith('.created'))
  );
}

/** "Bob changed 'Bern' after you; not undone". */
function refusal(later: HistoryEvent) {
  const what = later.objectName ? t('room:undo.quoted', { name: later.objectName }) : objectLabel(later);
  const actor = actorName(later);
  return new UndoRefused(
    later.type.endsWith('.deleted')
      ? t('room:undo.deletedAfter', { actor, what })
      : t('room:undo.changedAfter', { actor, what }),
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
