/**
 * How the API fields of a resource are stored: one column per field, named once here.
 * Arrays and objects are kept as JSON text (the same on SQLite and PostgreSQL). A presenter
 * reads a row into API fields with `fromRow`, a service writes the fields a caller sent with
 * `toColumns`, so no field list is written out twice.
 */
export class FieldColumns<Field extends string, Column extends string> {
  private readonly entries: [Field, Column][];
  private readonly nullRow: Record<Column, null>;

  constructor(
    map: Record<Field, Column>,
    private readonly json: ReadonlySet<Field> = new Set(),
  ) {
    this.entries = Object.entries(map) as [Field, Column][];
    this.nullRow = Object.fromEntries(this.entries.map(([, column]) => [column, null])) as Record<Column, null>;
  }

  /** The columns of the fields present in `input` (undefined fields are left out; null stays null). */
  toColumns(input: Partial<Record<Field, unknown>>): Partial<Record<Column, unknown>> {
    const columns: Partial<Record<Column, unknown>> = {};
    for (const [field, column] of this.entries) {
      const value = input[field];
      if (value === undefined) continue;
      columns[column] = this.json.has(field) && value !== null ? JSON.stringify(value) : value;
    }
    return columns;
  }

  /** Every field read from its column (JSON parsed). */
  fromRow(row: Record<Column, unknown>): Record<Field, unknown> {
    const fields = {} as Record<Field, unknown>;
    for (const [field, column] of this.entries) {
      const value = row[column];
      fields[field] = this.json.has(field) && typeof value === 'string' ? JSON.parse(value) : value;
    }
    return fields;
  }

  /** Every column set to null (a new row's starting point). */
  nulls(): Record<Column, null> {
    return { ...this.nullRow };
  }
}
