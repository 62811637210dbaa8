// Imported by test/web/error-words.test.ts too (type-checked under NodeNext: `.js` imports).
import { bodyLimits, paramLimits, uploadLimits } from '../api/limits.js';
import { formatNumber, t } from '../i18n/index.js';

/** What the service checks of one field (generated from its OpenAPI document into api/limits.ts). */
export interface FieldLimits {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly pattern?: string;
  readonly maxItems?: number;
  readonly enum?: readonly unknown[];
  readonly items?: FieldLimits;
  readonly fields?: Readonly<Record<string, FieldLimits>>;
}

type Bodies = typeof bodyLimits;
type Uploads = typeof uploadLimits;

/** The service's limits of a field of a JSON body, by operation (`PATCH /api/rooms/{roomId}`) and field name. */
export function fieldLimits<O extends keyof Bodies>(operation: O, field: keyof Bodies[O] & string): FieldLimits {
  return (bodyLimits[operation] as Readonly<Record<string, FieldLimits>>)[field] ?? {};
}

/** The attributes that hold an input to what the service takes: spread them on the <input>. */
export function inputLimits<O extends keyof Bodies>(operation: O, field: keyof Bodies[O] & string) {
  return attributesOf(fieldLimits(operation, field));
}

/** The same for a path parameter (a room id). */
export function paramInputLimits(name: keyof typeof paramLimits) {
  return attributesOf(paramLimits[name] as FieldLimits);
}

/** The attributes of an input for a field's limits (`fieldLimits(...).fields.x`). */
export function attributesOf(limits: FieldLimits = {}) {
  return {
    minLength: limits.minLength,
    maxLength: limits.maxLength,
    min: limits.minimum,
    max: limits.maximum,
    pattern: htmlPattern(limits.pattern),
  };
}

/**
 * A schema's pattern as an input's `pattern`, when it holds the whole value (`^...$`): the
 * browser anchors it itself and compiles it with the `v` flag, where a `-` in a class is escaped.
 * A pattern that only asks for part of the value (`\S`) is left to the service.
 */
export function htmlPattern(pattern: string | undefined): string | undefined {
  const whole = pattern && /^\^(.*)\$$/.exec(pattern);
  return whole ? whole[1]!.replace(/(?<!\\)-\]/g, '\\-]') : undefined;
}

/** The largest file a multipart form's part takes, in bytes. */
export function fileLimit<O extends keyof Uploads>(operation: O, part: keyof Uploads[O]['files'] & string): number {
  return (uploadLimits[operation].files as Readonly<Record<string, { maxBytes: number }>>)[part]!.maxBytes;
}

/** What a chunked upload may add up to (upload-chunk's `assembledMaxBytes`). */
export const CHUNKED_FILE_MAX_BYTES: number = uploadLimits['POST /api/layers/upload-chunk'].assembledMaxBytes;

/** A size for a person: "60 MB", "2 GB" (in units of 1024, as the service counts its caps). */
export function megabytes(bytes: number): string {
  const gigabytes = bytes >= 1024 ** 3;
  const amount = gigabytes ? bytes / 1024 ** 3 : bytes / 1024 ** 2;
  const rounded = formatNumber(amount >= 10 ? Math.round(amount) : Math.round(amount * 10) / 10);
  return gigabytes ? t('ui:sizes.gigabytes', { amount: rounded }) : t('ui:sizes.megabytes', { amount: rounded });
}

/** What a file is called in a refusal: "The photo" and "photos". */
export interface FileWords {
  the: string;
  plural: string;
}

/** Refuses a file over the service's cap before any byte is sent, saying both sizes. */
export function refuseOversized(file: Blob, maxBytes: number, words: FileWords): void {
  if (file.size > maxBytes)
    throw new Error(
      t('ui:files.oversized', {
        the: words.the,
        plural: words.plural,
        size: megabytes(file.size),
        max: megabytes(maxBytes),
      }),
    );
}
