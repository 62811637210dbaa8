import type { SlidesTable } from '../../db/tables.js';
import { newId } from '../../ids.js';
import { type Exchange, exchangeColumns } from '../exchange/exchange.js';
import { checker, num, text, when } from '../exchange/restore-values.js';
import { presentSlide } from './slides.presenter.js';
import type { SlidesRepository } from './slides.repository.js';
import { Slide } from './slides.schemas.js';

const checkSlide = checker('slide', Slide, presentSlide);

/** The slides of the presentation; restored after the room's own, in their order, showing the restored objects. */
export function slidesExchange(slides: SlidesRepository): Exchange<SlidesTable> {
  return {
    table: 'slides',
    description: 'The slides of the presentation, in order',
    source: 'slides',
    ...exchangeColumns<SlidesTable>()({
      omit: ['room_id'],
      columns: {
        id: 'TEXT',
        position: 'INTEGER',
        title: 'TEXT',
        body: 'TEXT',
        view: 'TEXT',
        base_layer: 'TEXT',
        marker_ids: 'TEXT',
        layer_ids: 'TEXT',
        raster_layer_ids: 'TEXT',
        drawing_ids: 'TEXT',
        created_by: 'TEXT',
        created_at: 'time',
        updated_at: 'time',
      },
    }),
    rows: (roomId) => slides.list(roomId),
    restore: {
      after: ['markers', 'drawings', 'layers'],
      counted: 'slides',
      add(r, context, { index }) {
        context.countOne();
        const mapIds = (value: unknown, kind: string) => {
          try {
            const list = JSON.parse(String(value)) as unknown;
            return JSON.stringify(Array.isArray(list) ? list.flatMap((id) => context.newIdOf(kind, id) ?? []) : []);
          } catch {
            return '[]';
          }
        };
        const row: SlidesTable = {
          id: newId('slide'),
          room_id: context.roomId,
          position: num(r.position) ?? index,
          title: text(r.title) ?? '',
          body: text(r.body),
          view: text(r.view) ?? '',
          base_layer: text(r.base_layer),
          marker_ids: mapIds(r.marker_ids, 'marker'),
          layer_ids: mapIds(r.layer_ids, 'layer'),
          raster_layer_ids: mapIds(r.raster_layer_ids, 'raster'),
          drawing_ids: mapIds(r.drawing_ids, 'drawing'),
          created_by: context.actor.id,
          created_at: when(r.created_at),
          updated_at: when(r.updated_at),
        };
        checkSlide(row, index);
        return row;
      },
      async arrange(trx, rows, roomId) {
        const start = await slides.nextPosition(trx, roomId);
        rows.sort((a, b) => a.position - b.position).forEach((slide, i) => (slide.position = start + i));
      },
      insert: (trx, rows) => slides.insert(trx, rows),
    },
  };
}
