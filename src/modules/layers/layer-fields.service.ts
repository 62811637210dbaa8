import { actorOf, type Caller } from '../../auth/access.js';
import type { Db } from '../../db/database.js';
import type { RoomRow } from '../../db/tables.js';
import { conflict, emptyUpdate, invalidField, notFound } from '../../errors.js';
import type { FieldType, LayerField } from '../../geo/feature-fields.js';
import { fieldValueProblem } from '../../geo/feature-values.js';
import type { WritePath } from '../history/write-path.js';
import type { FeatureAttributesRepository } from './feature-attributes.js';
import type { FeatureEditsRepository } from './feature-edits.repository.js';
import type { Field, FieldChange, NewField } from './layer-fields.schemas.js';
import type { LayerRow, LayersRepository } from './layers.repository.js';
import { fieldsOf, presentField, presentVectorLayer, styleOf } from './layers.presenter.js';
import type { LayerStyle } from './layers.schemas.js';

type VectorRow = LayerRow & { storage_key: number };

/** Most fields a layer has (every layer answer lists them), and the longest default (as JSON). */
export const MAX_FIELDS = 500;
const MAX_DEFAULT_LENGTH = 1000;

/** What a change did to the fields: the new list, the field it changed, and a property renamed (to null: removed). */
interface FieldsChanged {
  fields: LayerField[];
  field: LayerField;
  rewritten?: readonly [from: string, to: string | null];
}

export interface LayerFieldsParts {
  layers: LayersRepository;
  edits: FeatureEditsRepository;
  attributes: FeatureAttributesRepository;
  writePath: WritePath;
}

/** A field as sent, as the layer keeps it; 400 naming the part that is wrong. */
export function checkedField(input: NewField, prefix = 'body'): LayerField {
  const type: FieldType = input.type === 'text' ? 'string' : input.type;
  const field: LayerField = {
    name: input.name,
    type,
    ...(input.required && { required: true }),
    ...(input.choices && { choices: input.choices }),
    ...(input.default !== undefined && input.default !== null && { default: input.default }),
  };
  return checkedDefinition(field, prefix);
}

function checkedDefinition(field: LayerField, prefix: string): LayerField {
  if (field.type === 'choice' && !field.choices?.length)
    throw invalidField(`${prefix}.choices`, 'must list the values of a choice field');
  if (field.type !== 'choice' && field.choices)
    throw invalidField(`${prefix}.choices`, 'are only for a field of type choice');
  if (field.default !== undefined && JSON.stringify(field.default).length > MAX_DEFAULT_LENGTH)
    throw invalidField(`${prefix}.default`, `must be at most ${MAX_DEFAULT_LENGTH} characters as JSON`);
  if (field.default !== undefined) {
    const problem = fieldValueProblem(field.type, field.default, field.choices);
    if (problem) throw invalidField(`${prefix}.default`, problem);
  }
  return field;
}

/** Fields of distinct names; 400 naming the repeated one. */
export function assertDistinct(fields: LayerField[], where: (index: number) => string) {
  const seen = new Set<string>();
  for (const [i, field] of fields.entries()) {
    if (seen.has(field.name)) throw invalidField(where(i), `names the field ${JSON.stringify(field.name)} twice`);
    seen.add(field.name);
  }
}

/**
 * The fields of a vector layer (an uploaded one's, as its file declared them, or ones made
 * here): listed, added, renamed or changed, removed, each through the write path as a change
 * of the layer. A rename or removal rewrites the property in every feature and in the layer's
 * style (its label field, its classes), and drops the field's sort index.
 */
export class LayerFields {
  constructor(private readonly parts: LayerFieldsParts) {}

  async list(roomId: string, layerId: string): Promise<{ fields: Field[] }> {
    const layer = await this.parts.layers.findVector(roomId, layerId);
    if (!layer) throw notFound('Layer');
    return { fields: (fieldsOf(layer) ?? []).map(presentField) };
  }

  async add(room: RoomRow, caller: Caller, layerId: string, input: NewField): Promise<Field> {
    const field = checkedField(input);
    return this.change(room, caller, layerId, { added: field.name }, async (_trx, _layer, fields) => {
      if (fields.some((f) => f.name === field.name)) throw fieldTaken(field.name);
      if (fields.length >= MAX_FIELDS)
        throw invalidField('body.name', `cannot be added: a layer has at most ${MAX_FIELDS} fields`);
      return { fields: [...fields, field], field };
    });
  }

  async update(room: RoomRow, caller: Caller, layerId: string, name: string, input: FieldChange): Promise<Field> {
    if (Object.keys(input).length === 0) throw emptyUpdate();
    const renamed = input.name !== undefined && input.name !== name ? input.name : undefined;
    return this.change(room, caller, layerId, { changed: name, ...input }, async (trx, layer, fields) => {
      const current = fieldNamed(fields, name);
      if (renamed && fields.some((f) => f.name === renamed)) throw fieldTaken(renamed);
      const { name: _, default: fallback, ...rest } = input;
      const merged = { ...current, ...rest, name: renamed ?? name };
      if (fallback === null) delete merged.default;
      else if (fallback !== undefined) merged.default = fallback;
      if (merged.required === false) delete merged.required;
      const field = checkedDefinition(merged, 'body');
      if (renamed) await this.rewrite(trx, layer, name, renamed);
      return {
        fields: fields.map((f) => (f.name === name ? field : f)),
        field,
        ...(renamed && { rewritten: [name, renamed] as const }),
      };
    });
  }

  async remove(room: RoomRow, caller: Caller, layerId: string, name: string): Promise<void> {
    await this.change(room, caller, layerId, { removed: name }, async (trx, layer, fields) => {
      const field = fieldNamed(fields, name);
      await this.rewrite(trx, layer, name, null);
      return { fields: fields.filter((f) => f.name !== name), field, rewritten: [name, null] as const };
    });
  }

  /** One change of the layer's fields, through the write path: the layer's row locked, its new fields stored. */
  private async change(
    room: RoomRow,
    caller: Caller,
    layerId: string,
    changes: Record<string, unknown>,
    work: (trx: Db, layer: VectorRow, fields: LayerField[]) => Promise<FieldsChanged>,
  ): Promise<Field> {
    return this.parts.writePath.write(room.id, actorOf(caller), async (trx) => {
      const layer = await this.parts.layers.touchVector(trx, room.id, layerId);
      if (!layer) throw notFound('Layer');
      const { fields, field, rewritten } = await work(trx, layer, fieldsOf(layer) ?? []);
      const row: LayerRow = {
        ...layer,
        fields: JSON.stringify(fields),
        style: rewritten ? JSON.stringify(styleWith(styleOf(layer), ...rewritten)) : layer.style,
      };
      await this.parts.layers.update(trx, layer.id, { fields: row.fields, style: row.style });
      const data = presentVectorLayer(row);
      return {
        result: presentField(field),
        changes: [
          { type: 'layer.updated', objectType: 'layer', objectId: layer.id, changes: { fields: changes }, data },
        ],
      };
    });
  }

  /** The property renamed (`to`) or removed (null) in every feature; the old name's sort index dropped. */
  private async rewrite(trx: Db, layer: VectorRow, from: string, to: string | null) {
    if (to === null) await this.parts.edits.removeProperty(trx, layer.storage_key, from);
    else await this.parts.edits.renameProperty(trx, layer.storage_key, from, to);
    await this.parts.attributes.dropSortIndex(trx, layer.storage_key, from);
  }
}

/** A style whose label and classes name `to` where they named `from` (null: taken out). */
function styleWith(style: LayerStyle, from: string, to: string | null): LayerStyle {
  const next = { ...style };
  if (next.labelField === from) next.labelField = to;
  if (next.classify?.field === from) next.classify = to === null ? null : { ...next.classify, field: to };
  return next;
}

function fieldNamed(fields: LayerField[], name: string): LayerField {
  const field = fields.find((f) => f.name === name);
  if (!field) throw notFound('Field');
  return field;
}

const fieldTaken = (name: string) =>
  conflict('field_exists', `The layer has a field named ${JSON.stringify(name)} already`);
