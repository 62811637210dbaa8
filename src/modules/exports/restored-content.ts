import { randomUUID } from 'node:crypto';
import type { TSchema } from 'typebox';
import type { Actor } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import { inChunks } from '../../db/room-table.js';
import type {
  CommentRepliesTable,
  CommentsTable,
  DrawingsTable,
  MarkerIconsTable,
  MarkersTable,
  SlidesTable,
  Tables,
} from '../../db/tables.js';
import { invalidFile } from '../../errors.js';
import type { GpkgReadLayout } from '../../geo-engine/gpkg-reader.js';
import { geometryProblem } from '../../geo/geometry.js';
import type { GeoJsonGeometry } from '../../geo/gpkg/wkb.js';
import { newId } from '../../ids.js';
import { SchemaCheck } from '../../schema-problems.js';
import { presentComment, presentReply } from '../comments/comments.presenter.js';
import { Comment, Reply } from '../comments/comments.schemas.js';
import { presentDrawing } from '../drawings/drawings.presenter.js';
import { Drawing } from '../drawings/drawings.schemas.js';
import { blobKeys } from '../files/blob-keys.js';
import type { StoredFiles } from '../files/stored-files.js';
import { cleanPhoto } from '../markers/marker-images.js';
import { presentMarker } from '../markers/markers.presenter.js';
import { ImageMetaSchema, Marker } from '../markers/markers.schemas.js';
import { presentSlide } from '../slides/slides.presenter.js';
import { writeSlideObjects } from '../slides/slides.repository.js';
import { Slide } from '../slides/slides.schemas.js';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportColumn, META, toRowValue } from './export-tables.js';

export interface ImportCounts {
  markers: number;
  drawings: number;
  comments: number;
  replies: number;
  slides: number;
  icons: number;
  images: number;
  layers: number;
  rasterLayers: number;
}

type Row = Record<string, unknown>;
/** Objects one import restores at most (each is held until the import's one transaction). */
export const MAX_RESTORED_OBJECTS = 1_000_000;

/** How the GeoPackage reader reads a room export (geo-engine/gpkg-reader.ts). */
export const EXPORT_LAYOUT: GpkgReadLayout<ExportColumn> = {
  metaTable: META.table,
  format: EXPORT_FORMAT,
  version: String(EXPORT_VERSION),
  maxRows: MAX_RESTORED_OBJECTS,
  rowValue: toRowValue,
};

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  if (s.includes('\u0000'))
    throw invalidFile('The export holds a text with a NUL character, which a database cannot keep');
  return s;
}
/** A JSON column: GDAL reads JSON text back as the array or object it holds. */
const json = (value: unknown) => (value !== null && typeof value === 'object' ? JSON.stringify(value) : text(value));
const num = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));

/** Checks a restored row the way the API would show it; a row that does not fit is refused naming it. */
function checker<R, S extends TSchema>(what: string, schema: S, present: (row: R) => unknown) {
  const check = new SchemaCheck(schema);
  return (row: R, index: number) => {
    let problem: string | null;
    try {
      problem = check.problem(present(row));
    } catch (error) {
      problem = (error as Error).message;
    }
    if (problem) throw invalidFile(`The export's ${what} ${index + 1} cannot be restored: ${problem}`);
  };
}

const checkMarker = checker('marker', Marker, presentMarker);
const checkDrawing = checker('drawing', Drawing, presentDrawing);
const checkComment = checker('comment', Comment, (row: CommentsTable) => presentComment(row));
const checkReply = checker('reply', Reply, presentReply);
const checkSlide = checker('slide', Slide, presentSlide);

/**
 * The small objects of a restored export: every one under a new id, with references (a
 * marker's icon and photo, a comment's object, a slide's markers, layers and drawings)
 * carried over to the new ids. Files (icons, photos) are stored as they come; the rows are
 * inserted in the import's final transaction.
 */
export class RestoredContent {
  readonly counts: ImportCounts = {
    markers: 0,
    drawings: 0,
    comments: 0,
    replies: 0,
    slides: 0,
    icons: 0,
    images: 0,
    layers: 0,
    rasterLayers: 0,
  };
  readonly skipped: Record<string, string>[] = [];
  /** Old id to new id, one map per kind: a crafted file cannot make a slide's marker a drawing. */
  private readonly ids = {
    icon: new Map<string, string>(),
    marker: new Map<string, string>(),
    drawing: new Map<string, string>(),
    layer: new Map<string, string>(),
    raster: new Map<string, string>(),
    comment: new Map<string, string>(),
  };
  private readonly keys = new Map<string, string>();
  private readonly storedKeys: string[] = [];
  private readonly rows = {
    marker_icons: [] as MarkerIconsTable[],
    markers: [] as MarkersTable[],
    drawings: [] as DrawingsTable[],
    comments: [] as CommentsTable[],
    comment_replies: [] as CommentRepliesTable[],
    slides: [] as SlidesTable[],
  };

  constructor(
    private readonly roomId: string,
    private readonly actor: Actor,
    private readonly files: StoredFiles,
  ) {}

  mapLayer(oldId: string, newId_: string) {
    this.ids.layer.set(oldId, newId_);
    this.counts.layers += 1;
  }

  mapRaster(oldId: string, newId_: string) {
    this.ids.raster.set(oldId, newId_);
    this.counts.rasterLayers += 1;
  }

  async addIcon(row: Row, file: { data: Buffer; contentType: string; ext: string }) {
    const id = newId('icon-api');
    const key = blobKeys.icon(this.roomId, id, file.ext);
    await this.files.store([
      { roomId: this.roomId, key, kind: 'marker-icon', contentType: file.contentType, data: file.data },
    ]);
    this.storedKeys.push(key);
    this.countOne();
    const stated = num(row.size);
    const size = stated !== null && Number.isFinite(stated) ? Math.min(256, Math.max(8, Math.round(stated))) : 32;
    this.rows.marker_icons.push({
      id,
      room_id: this.roomId,
      name: (text(row.name) ?? 'icon').slice(0, 100),
      size,
      file_key: key,
      content_type: file.contentType,
      created_by: this.actor.id,
      created_at: when(row.created_at),
    });
    this.ids.icon.set(String(row.id), id);
    this.counts.icons += 1;
  }

  /**
   * A marker photo or thumbnail, made again what an upload stores (a clean JPEG without
   * metadata, a thumbnail within 512 px); one that does not decode is left out, and so is its
   * marker's photo. Its provenance is kept only when it has the API's shape.
   */
  async addImage(row: Row, data: Buffer) {
    if ((row.kind !== 'marker-image' && row.kind !== 'marker-thumbnail') || this.keys.has(String(row.key))) return;
    this.countOne();
    const jpeg = await cleanPhoto(data, row.kind === 'marker-thumbnail');
    if (!jpeg) return;
    const key = (row.kind === 'marker-thumbnail' ? blobKeys.markerThumbnail : blobKeys.markerImage)(
      this.roomId,
      randomUUID(),
    );
    const meta = imageMeta(row.meta);
    await this.files.store([
      {
        roomId: this.roomId,
        key,
        kind: String(row.kind),
        contentType: 'image/jpeg',
        data: jpeg,
        ...(meta !== null && { meta }),
      },
    ]);
    this.storedKeys.push(key);
    this.keys.set(String(row.key), key);
    this.counts.images += 1;
  }

  addMarker(feature: { geometry: GeoJsonGeometry | null; properties: Row }) {
    const p = feature.properties;
    if (feature.geometry?.type !== 'Point') return;
    this.countOne();
    const [longitude, latitude] = feature.geometry.coordinates as [number, number];
    const imageKey = this.keys.get(String(p.image_key));
    const thumbnailKey = this.keys.get(String(p.thumbnail_key));
    const withImage = imageKey !== undefined && thumbnailKey !== undefined;
    const row: MarkersTable = {
      id: newId('marker'),
      room_id: this.roomId,
      latitude,
      longitude,
      title: text(p.title),
      description: text(p.description),
      color: text(p.color),
      tags: json(p.tags),
      event_date: eventDate(p.event_date),
      marker_icon_id: p.marker_icon_id ? (this.ids.icon.get(String(p.marker_icon_id)) ?? null) : null,
      marker_icon_size: num(p.marker_icon_size),
      image_key: withImage ? imageKey : null,
      thumbnail_key: withImage ? thumbnailKey : null,
      image_meta: withImage ? jsonOrNull(imageMeta(p.image_meta)) : null,
      embedded_media_url: text(p.embedded_media_url),
      media_size: text(p.media_size),
      created_by: this.actor.id,
      created_at: when(p.created_at),
      updated_at: when(p.updated_at),
      import_job_id: null,
    };
    checkMarker(row, this.rows.markers.length);
    this.rows.markers.push(row);
    this.ids.marker.set(String(p.id), row.id);
    this.counts.markers += 1;
  }

  addDrawing(feature: { geometry: GeoJsonGeometry | null; properties: Row }) {
    const p = feature.properties;
    if (!feature.geometry) return;
    this.countOne();
    const problem = geometryProblem(feature.geometry);
    if (problem)
      throw invalidFile(`The export's drawing ${this.rows.drawings.length + 1} cannot be restored: ${problem}`);
    const row: DrawingsTable = {
      id: newId('drawing'),
      room_id: this.roomId,
      geometry: JSON.stringify(feature.geometry),
      label: text(p.label),
      style: json(p.style),
      created_by: this.actor.id,
      created_at: when(p.created_at),
      updated_at: when(p.updated_at),
    };
    checkDrawing(row, this.rows.drawings.length);
    this.rows.drawings.push(row);
    this.ids.drawing.set(String(p.id), row.id);
    this.counts.drawings += 1;
  }

  addComment(r: Row) {
    this.countOne();
    const objectId = String(r.object_id);
    const object =
      r.object_type === 'marker'
        ? this.ids.marker.get(objectId)
        : r.object_type === 'drawing'
          ? this.ids.drawing.get(objectId)
          : (this.ids.layer.get(objectId) ?? this.ids.raster.get(objectId));
    const row: CommentsTable = {
      id: newId('comment'),
      room_id: this.roomId,
      // A comment on an object the export does not hold (deleted since) keeps the id it had.
      object_id: object ?? objectId,
      object_type: text(r.object_type) ?? '',
      object_name: text(r.object_name),
      body: text(r.body) ?? '',
      lat: num(r.lat),
      lng: num(r.lng),
      resolved: r.resolved ? 1 : 0,
      author_kind: this.actor.kind,
      author_id: this.actor.id,
      created_at: when(r.created_at),
      updated_at: when(r.updated_at),
    };
    checkComment(row, this.rows.comments.length);
    this.rows.comments.push(row);
    this.ids.comment.set(String(r.id), row.id);
    this.counts.comments += 1;
  }

  addReply(r: Row) {
    const commentId = this.ids.comment.get(String(r.comment_id));
    if (!commentId) return;
    this.countOne();
    const row: CommentRepliesTable = {
      id: newId('reply'),
      comment_id: commentId,
      room_id: this.roomId,
      body: text(r.body) ?? '',
      author_kind: this.actor.kind,
      author_id: this.actor.id,
      created_at: when(r.created_at),
    };
    checkReply(row, this.rows.comment_replies.length);
    this.rows.comment_replies.push(row);
    this.counts.replies += 1;
  }

  addSlide(r: Row) {
    this.countOne();
    const mapIds = (value: unknown, ids: Map<string, string>) => {
      try {
        const list = JSON.parse(String(value)) as unknown;
        return JSON.stringify(Array.isArray(list) ? list.flatMap((id) => ids.get(String(id)) ?? []) : []);
      } catch {
        return '[]';
      }
    };
    const row: SlidesTable = {
      id: newId('slide'),
      room_id: this.roomId,
      position: num(r.position) ?? this.rows.slides.length,
      title: text(r.title) ?? '',
      body: text(r.body),
      view: text(r.view) ?? '',
      base_layer: text(r.base_layer),
      marker_ids: mapIds(r.marker_ids, this.ids.marker),
      layer_ids: mapIds(r.layer_ids, this.ids.layer),
      raster_layer_ids: mapIds(r.raster_layer_ids, this.ids.raster),
      drawing_ids: mapIds(r.drawing_ids, this.ids.drawing),
      created_by: this.actor.id,
      created_at: when(r.created_at),
      updated_at: when(r.updated_at),
    };
    checkSlide(row, this.rows.slides.length);
    this.rows.slides.push(row);
    this.counts.slides += 1;
  }

  private objects = 0;

  /** Counts one restored object; past MAX_RESTORED_OBJECTS the file is refused. */
  private countOne() {
    this.objects += 1;
    if (this.objects > MAX_RESTORED_OBJECTS)
      throw invalidFile(
        `The export holds more than ${MAX_RESTORED_OBJECTS} objects; one import restores at most that many`,
      );
  }

  /** Inserts the rows (slides after the room's own, in their order), inside the import's transaction. */
  async insert(trx: Db): Promise<void> {
    const last = await trx
      .selectFrom('slides')
      .select((eb) => eb.fn.max('position').as('p'))
      .where('room_id', '=', this.roomId)
      .executeTakeFirst();
    const start = last?.p === null || last?.p === undefined ? 0 : Number(last.p) + 1;
    this.rows.slides.sort((a, b) => a.position - b.position).forEach((slide, i) => (slide.position = start + i));
    for (const table of ['marker_icons', 'markers', 'drawings', 'comments', 'comment_replies', 'slides'] as const) {
      for (const chunk of inChunks<Tables[typeof table]>(this.rows[table], 200))
        await trx
          .insertInto(table)
          .values(chunk as never)
          .execute();
    }
    await writeSlideObjects(trx, this.rows.slides);
  }

  /** Removes the files stored for an import that failed. */
  async discardFiles(): Promise<void> {
    await this.files.remove(this.roomId, this.storedKeys);
  }
}

/** A marker's date: any time a JavaScript date can hold (about 275,000 years either side of 1970). */
function eventDate(value: unknown): number | null {
  const ms = time(value);
  return ms !== null && Math.abs(ms) <= 8.64e15 ? ms : null;
}

/** A restored object's time: the file's, unless it is missing or not between 1970 and now. */
function when(value: unknown): number {
  const ms = time(value);
  const now = Date.now();
  return ms !== null && ms >= 0 && ms <= now ? ms : now;
}

const checkImageMeta = new SchemaCheck(ImageMetaSchema);

/** A photo's provenance (JSON text or an object) when it has the API's shape, else null. */
function imageMeta(value: unknown): unknown {
  try {
    const meta = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    return meta !== null && meta !== undefined && checkImageMeta.problem(meta) === null ? meta : null;
  } catch {
    return null;
  }
}

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** A time as GDAL writes a DATETIME (ISO 8601, possibly with `/` separators), to epoch milliseconds. */
function time(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return value;
  const ms = Date.parse(String(value).replace(/^(\d{4})\/(\d{2})\/(\d{2}) /, '$1-$2-$3T'));
  return Number.isFinite(ms) ? ms : null;
}
