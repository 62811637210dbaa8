import { readHistory, restoreEntry } from './actions/history';
import type { RoomContextValue } from './room-context';
import { t } from '../i18n/index.js';

/**
 * After a restorable delete (a marker, drawing, slide, comment): "Deleted …" with Undo, which
 * restores the object from its `*.deleted` history entry, same id, only if that entry is still
 * the object's newest (`ifLatestVersion`): someone else's later restore or change is not undone.
 */
export function offerUndoDelete(
  room: Pick<RoomContextValue, 'model' | 'notify' | 'attempt'>,
  what: string,
  objectType: string,
  objectId: string,
) {
  const undo = () =>
    void room.attempt(
      async () => {
        const newest = (await readHistory(room.model, undefined, 50)).find((e) => e.objectId === objectId);
        if (newest?.type !== `${objectType}.${'deleted'}`)
          throw new Error(capitalised(t('room:undoDelete.changedSince', { what })));
        await restoreEntry(room.model, newest.id, newest.version);
      },
      t('room:undoDelete.restored', { what }),
    );
  room.notify(t('room:undoDelete.deleted', { what }), 'info', { label: t('room:undoDelete.undo'), run: undo });
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
