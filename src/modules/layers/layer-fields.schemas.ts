import { Type, type Static } from 'typebox';

/**
 * A layer's fields as the fields routes show them. `text` is what the attribute table and
 * exports call `string`; an uploaded file's fields may also be `datetime` or `json`.
 */
export const FIELD_TYPES = ['text', 'integer', 'real', 'date', 'boolean', 'choice', 'datetime', 'json'] as const;
/** The types a field made through the API may have. */
const NEW_FIELD_TYPES = ['text', 'integer', 'real', 'date', 'boolean', 'choice'] as const;

export const FieldName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' });
const Choices = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 500,
  uniqueItems: true,
  description: 'The values a `choice` field takes (only for `choice`)',
});
const Default = Type.Unknown({ description: "A new feature's value when it gives none: of the field's type" });

export const Field = Type.Object({
  name: Type.String(),
  type: Type.Enum(FIELD_TYPES),
  required: Type.Boolean({ description: 'A new or changed feature must give a value (not null)' }),
  choices: Type.Optional(Type.Array(Type.String())),
  default: Type.Optional(Default),
});
export type Field = Static<typeof Field>;

export const NewField = Type.Object(
  {
    name: FieldName,
    type: Type.Enum(NEW_FIELD_TYPES),
    required: Type.Optional(Type.Boolean()),
    choices: Type.Optional(Choices),
    default: Type.Optional(Default),
  },
  { additionalProperties: false },
);
export type NewField = Static<typeof NewField>;

export const FieldChange = Type.Object(
  {
    name: Type.Optional(FieldName),
    required: Type.Optional(Type.Boolean()),
    choices: Type.Optional(Choices),
    default: Type.Optional(Type.Union([Default, Type.Null()], { description: 'null: no default' })),
  },
  { additionalProperties: false },
);
export type FieldChange = Static<typeof FieldChange>;

export const FieldParams = Type.Object({
  layerId: Type.String({ minLength: 1, maxLength: 100 }),
  name: FieldName,
});

export const FieldsReply = Type.Object({ fields: Type.Array(Field) });
