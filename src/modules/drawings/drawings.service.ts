import { actorOf, type Caller } from '../../auth/access.js';
import type { RoomTable } from '../../db/room-table.js';
import type { DrawingsTable } from '../../db/tables.js';
import { badRequest, emptyUpdate, notFound } from '../../errors.js';
import { geometryProblem } from '../../geo/geometry.js';
import { newId } from '../../ids.js';
import type { WritePath } from '../history/write-path.js';
import type { RoomRow } from '../../db/tables.js';
import { drawingColumns, presentDrawing } from './drawings.presenter.js';
import type { CreateDrawingInput, DrawingInput } from './drawings.schemas.js';

function checkGeometry(geometry: unknown) {
  const problem = geometryProblem(geometry);
  if (problem) throw badRequest(problem, [{ field: 'body.geometry', message: problem }]);
}

/** Drawn shapes: every change goes through the write path (history and live). */
export class DrawingsService {
  constructor(
    private readonly drawings: RoomTable<'drawings'>,
    private readonly writePath: WritePath,
  ) {}

  async list(room: RoomRow) {
    return { drawings: (await this.drawings.list(room.id)).map(presentDrawing) };
  }

  async create(room: RoomRow, caller: Caller, input: CreateDrawingInput) {
    checkGeometry(input.geometry);
    const now = Date.now();
    const row: DrawingsTable = {
      id: newId('drawing'),
      room_id: room.id,
      geometry: '',
      label: null,
      style: null,
      ...drawingColumns(input),
      created_by: actorOf(caller).id,
      created_at: now,
      updated_at: now,
    };
    const drawing = presentDrawing(row);
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      await this.drawings.insert(trx, [row]);
      return {
        result: null,
        changes: [{ type: 'drawing.created', objectType: 'drawing', objectId: row.id, changes: input, data: drawing }],
      };
    });
    return { success: true, drawing };
  }

  async update(room: RoomRow, caller: Caller, drawingId: string, input: DrawingInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    if (input.geometry !== undefined) checkGeometry(input.geometry);
    const drawing = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.drawings.find(room.id, drawingId, trx);
      if (!previous) throw notFound('Drawing');
      const row: DrawingsTable = { ...previous, ...drawingColumns(input), updated_at: Date.now() };
      await this.drawings.replace(trx, row);
      const drawing = presentDrawing(row);
      return {
        result: drawing,
        changes: [
          { type: 'drawing.updated', objectType: 'drawing', objectId: drawingId, changes: input, data: drawing },
        ],
      };
    });
    return { success: true, drawing };
  }

  async delete(room: RoomRow, caller: Caller, drawingId: string, ifLatestVersion?: number) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      if (!(await this.drawings.delete(trx, room.id, drawingId))) throw notFound('Drawing');
      // After the delete (undone with the write if refused): a drawing that is gone is a 404.
      await this.writePath.ensureLatest(trx, room.id, ['drawing', drawingId], ifLatestVersion);
      return {
        result: null,
        changes: [{ type: 'drawing.deleted', objectType: 'drawing', objectId: drawingId, data: null }],
      };
    });
    return { success: true, drawingId };
  }
}
