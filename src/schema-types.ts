import { Type, type TSchema } from 'typebox';

/** The schema, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A colour: `#` and 3, 6 or 8 hex digits. */
export const HexColor = Type.String({
  pattern: '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$',
  examples: ['#e74c3c'],
});
