/**
 * SQLite's JSON path of a feature property (a top-level key), whatever characters its name
 * holds: a quoted label with the name's JSON escapes, which SQLite decodes, and a quote as
 * \u0022 (a label ends at the first quote). Written in as it is, a name with a backslash made
 * the path malformed (an SQL error: a 500) and one with a quote named another key.
 */
export function jsonPathOf(name: string): string {
  return `$."${JSON.stringify(name).slice(1, -1).replace(/\\"/g, '\\u0022')}"`;
}
