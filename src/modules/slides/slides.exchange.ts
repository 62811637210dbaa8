import type { SlidesTable } from '../../db/tables.js';
import type { Exchange } from '../exchange/exchange.js';
import { authored, authoredColumns, objectsExchange } from '../exchange/file-tables.js';
import { checker, num, text } from '../exchange/restore-values.js';
import { presentSlide } from './slides.presenter.js';
import type { SlidesRepository } from './slides.repository.js';
import { Slide } from './slides.schemas.js';

const checkSlide = checker('slide', Slide, presentSlide);

/** The slides of the presentation; restored after the room's own, in their order, showing the restored objects. */
export function slidesExchange(slides: SlidesRepository): Exchange<SlidesTable> {
  return objectsExchange({
    source: 'slides',
    description: 'The slides of the presentation, in order',
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
      ...authoredColumns,
    },
    store: slides,
    restore: {
      kind: 'slide',
      check: checkSlide,
      after: ['markers', 'drawings', 'layers'],
      counted: 'slides',
      own(r, context, { index }) {
        context.countOne();
        const mapIds = (value: unknown, kind: string) => {
          try {
            const list = JSON.parse(String(value)) as unknown;
            return JSON.stringify(Array.isArray(list) ? list.flatMap((id) => context.newIdOf(kind, id) ?? []) : []);
          } catch {
            return '[]';
          }
        };
        return {
          position: num(r.position) ?? index,
          title: text(r.title) ?? '',
          body: text(r.body),
          view: text(r.view) ?? '',
          base_layer: text(r.base_layer),
          marker_ids: mapIds(r.marker_ids, 'marker'),
          layer_ids: mapIds(r.layer_ids, 'layer'),
          raster_layer_ids: mapIds(r.raster_layer_ids, 'raster'),
          drawing_ids: mapIds(r.drawing_ids, 'drawing'),
          ...authored(r, context),
        };
      },
      async arrange(trx, rows, roomId) {
        const start = await slides.nextPosition(trx, roomId);
        rows.sort((a, b) => a.position - b.position).forEach((slide, i) => (slide.position = start + i));
      },
    },
  });
}
