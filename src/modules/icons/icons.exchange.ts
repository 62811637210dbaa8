import type { MarkerIconsTable } from '../../db/tables.js';
import { newId } from '../../ids.js';
import type { Exchange } from '../exchange/exchange.js';
import { fileTable } from '../exchange/file-tables.js';
import { num, text, when } from '../exchange/restore-values.js';
import { blobKeys } from '../files/blob-keys.js';
import { presentIcon } from './icons.presenter.js';
import type { IconsRepository } from './icons.repository.js';
import { prepareIcon } from './icons.service.js';

/** An icon in a clone's manifest: the source room's icon, renamed or resized by the caller. */
type ManifestIcon = { iconId: string; name?: string; size?: number };

/** Marker icons, with the file itself in `data`; restored as an upload stores them (a file from a clone's source room already is). */
export function iconsExchange(icons: IconsRepository): Exchange<MarkerIconsTable> {
  return {
    ...fileTable({
      source: 'marker_icons',
      table: 'marker_icons',
      description: 'Marker icons (SVG or PNG in data)',
      omit: ['room_id', 'file_key'],
      fileOnly: ['data'],
      blobLookup: 'id',
      columns: {
        id: 'TEXT',
        name: 'TEXT',
        size: 'INTEGER',
        content_type: 'TEXT',
        created_by: 'TEXT',
        created_at: 'time',
        data: 'BLOB',
      },
    }),
    export: { rows: (roomId) => icons.listForRoom(roomId), fileKey: (row) => row.file_key },
    clone: {
      manifest: (rows) => ({ icons: rows.map(presentIcon) }),
      restoredFrom: {
        field: 'icons',
        sourceId: (icon: ManifestIcon) => icon.iconId,
        fileRow: (icon: ManifestIcon, source) =>
          source ? { row: { ...source, name: icon.name ?? source.name, size: icon.size ?? source.size } } : null,
      },
    },
    restore: {
      after: [],
      counted: 'icons',
      async add(row, context, { data, fromRoom }) {
        if (!data) return null;
        const file = fromRoom
          ? { data, contentType: String(row.content_type), ext: row.content_type === 'image/png' ? 'png' : 'svg' }
          : await prepareIcon(data);
        const id = newId('icon-api');
        const key = blobKeys.icon(context.roomId, id, file.ext);
        await context.store({ key, kind: 'marker-icon', contentType: file.contentType, data: file.data });
        context.countOne();
        const stated = num(row.size);
        const size = stated !== null && Number.isFinite(stated) ? Math.min(256, Math.max(8, Math.round(stated))) : 32;
        context.remember('icon', row.id, id);
        return {
          id,
          room_id: context.roomId,
          name: (text(row.name) ?? 'icon').slice(0, 100),
          size,
          file_key: key,
          content_type: file.contentType,
          created_by: context.actor.id,
          created_at: when(row.created_at),
        };
      },
      insert: (trx, rows) => icons.insertMany(trx, rows),
    },
  };
}
