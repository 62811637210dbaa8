import { Type, type Static } from 'typebox';

/** The interface's cap on one request; bigger files go through chunked upload. */
export const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;

/** The text fields of `POST /api/layers/upload` (multipart), with their limits. */
export const UPLOAD_FIELDS = {
  roomName: { maxLength: 10 },
  layerName: { maxLength: 200 },
  description: { maxLength: 2000 },
  style: { maxLength: 2000 },
  display: { maxLength: 4000 },
  sourceCrs: { maxLength: 20 },
  as: { maxLength: 10 },
};

/** What an upload may make of a vector file (its `as`); `auto`, the default, decides by content. */
export const UPLOAD_AS = ['auto', 'layer', 'markers'] as const;
export type UploadAs = (typeof UPLOAD_AS)[number];

/** An upload's `as`, as a JSON body (process-chunked) and a job's payload hold it. */
export const UploadAsSchema = Type.Enum(UPLOAD_AS, {
  description:
    'What the file becomes: `auto` (the default) markers when every feature is a point, else layers; ' +
    '`layer` always vector layers, points included, every attribute a field; `markers` markers, and a file ' +
    'with any feature that is not a point is 400 `not_points`',
});

/** What an upload's form says besides the file (`style` and `display` are JSON texts). */
export interface UploadFields {
  layerName?: string;
  description?: string;
  style?: string;
  display?: string;
  /** The EPSG code of the file's coordinates (`2056` or `EPSG:2056`), for files that name none. */
  sourceCrs?: string;
  /** What the file becomes: `auto` (by content, the default), `layer` or `markers`. */
  as?: string;
}

/** The payload of a `layer-upload` job: the file waiting in the blob store, and the form's fields. */
export const UploadJobPayload = Type.Object({
  fileKey: Type.String(),
  fileName: Type.String(),
  layerName: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  style: Type.Record(Type.String(), Type.Unknown()),
  display: Type.Union([Type.Unknown(), Type.Null()]),
  sourceCrs: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  as: Type.Optional(UploadAsSchema),
});
export type UploadJobPayload = Static<typeof UploadJobPayload>;
