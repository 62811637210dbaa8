import type { Caller } from '../../auth/access.js';
import type { RoomTable } from '../../db/room-table.js';
import type { DrawingsTable } from '../../db/tables.js';
import { badRequest, emptyUpdate, notFound } from '../../errors.js';
import { geometryProblem } from '../../geo/geometry.js';
import { newId } from '../../ids.js';
import { actorOf, type WritePath } from '../history/write-path.js';
import type { RoomRow } from '../rooms/rooms.repository.js';
import type { DrawingInput } from './drawings.schemas.js';

export const presentDrawing = (row: DrawingsTable) => ({
  id: row.id,
  geometry: JSON.parse(row.geometry) as unknown,
  label: row.label,
  style: row.style === null ? null : (JSON.parse(row.style) as Record<string, unknown>),
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

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

  async create(room: RoomRow, caller: Caller, input: DrawingInput) {
    checkGeometry(input.geometry);
    const now = Date.now();
    const row: DrawingsTable = {
      id: newId('drawing'),
      room_id: room.id,
      geometry: JSON.stringify(input.geometry),
      label: input.label ?? null,
      style: input.style ? JSON.stringify(input.style) : null,
      created_by: actorOf(caller).id,
      created_at: now,
      updated_at: now,
    };
    const drawing = presentDrawing(row);
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      await this.drawings.insert(trx, [row]);
      return { result: null, changes: [{ type: 'drawing.created', objectType: 'drawing', objectId: row.id, changes: input, data: drawing }] };
    });
    return { success: true, drawing };
  }

  async update(room: RoomRow, caller: Caller, drawingId: string, input: DrawingInput) {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    if (input.geometry !== undefined) checkGeometry(input.geometry);
    const drawing = await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      const previous = await this.drawings.find(room.id, drawingId, trx);
      if (!previous) throw notFound('Drawing');
      const row: DrawingsTable = {
        ...previous,
        ...(input.geometry !== undefined && { geometry: JSON.stringify(input.geometry) }),
        ...(input.label !== undefined && { label: input.label }),
        ...(input.style !== undefined && { style: input.style === null ? null : JSON.stringify(input.style) }),
        updated_at: Date.now(),
      };
      await this.drawings.replace(trx, row);
      const drawing = presentDrawing(row);
      return { result: drawing, changes: [{ type: 'drawing.updated', objectType: 'drawing', objectId: drawingId, changes: input, data: drawing }] };
    });
    return { success: true, drawing };
  }

  async delete(room: RoomRow, caller: Caller, drawingId: string) {
    await this.writePath.write(room.id, actorOf(caller), async (trx) => {
      if (!(await this.drawings.delete(trx, room.id, drawingId))) throw notFound('Drawing');
      return { result: null, changes: [{ type: 'drawing.deleted', objectType: 'drawing', objectId: drawingId, data: null }] };
    });
    return { success: true, drawingId };
  }
}
