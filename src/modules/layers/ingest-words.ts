/**
 * An ingest's progress in words people read (the page shows them as they come): counts grouped
 * ("read 26,008 of 187,388 features"), and a table named only among several: one file's only
 * table is named after the stored file, a job's id, which means nothing to anyone.
 */
export const progressWords = (tables: number, tableName: string, words: string) =>
  tables > 1 ? `${tableName}: ${words}` : words;

/** How far a step has come through a table's features (`of` null: not counted before they are read). */
export const featuresDone = (step: 'read' | 'stored', done: number, of: number | null) =>
  of === null
    ? `${step} ${count(done)} ${done === 1 ? 'feature' : 'features'}`
    : `${step} ${count(done)} of ${count(of)} ${of === 1 ? 'feature' : 'features'}`;

const count = (n: number) => n.toLocaleString('en');
