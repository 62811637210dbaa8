import type { RoomRow } from '../../db/tables.js';
import { presentHistoryEvent } from './history.presenter.js';
import type { HistoryRepository } from './history.repository.js';

/** The room's timeline, newest first. */
export class HistoryService {
  constructor(private readonly history: HistoryRepository) {}

  async page(room: RoomRow, limit: number, before?: number) {
    return { events: (await this.history.page(room.id, limit, before)).map(presentHistoryEvent) };
  }
}
