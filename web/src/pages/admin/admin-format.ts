/** Bytes for a person: `0 B`, `12.3 kB`, `4.5 MB`, `1.2 GB` (powers of 1000). */
export function bytesText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A time (epoch ms) for a person, in their locale; `never` for none. */
export const timeText = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toLocaleString());

/** A use against a limit: `3 of 10`, or just `3` when there is no limit (0). */
export const ofLimit = (use: string | number, limit: string | number, none: boolean) =>
  none ? `${use}` : `${use} of ${limit}`;
