import cliProgress from 'cli-progress';

/**
 * What a command prints. Results go to standard output: JSON with `--json`, else lines and
 * tables for a person. Progress and notes go to standard error, so that `> file` and pipes
 * receive the result alone.
 */
export class Output {
  constructor(readonly json: boolean) {}

  /** Prints the command's result: as JSON for scripts, else as `human` writes it. */
  result(value: unknown, human: () => void): void {
    if (this.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else human();
  }

  line(text = ''): void {
    process.stdout.write(`${text}\n`);
  }

  /** A note for the person at the terminal (standard error). */
  note(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  /** Rows as aligned columns under a header; `(none)` when there are none. */
  table<R>(rows: R[], columns: [header: string, cell: (row: R) => unknown][]): void {
    if (rows.length === 0) return this.line('(none)');
    const cells = [
      columns.map(([header]) => header),
      ...rows.map((row) => columns.map(([, cell]) => textOf(cell(row)))),
    ];
    const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
    for (const r of cells)
      this.line(
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      );
  }

  progress(label: string): Progress {
    return new Progress(label);
  }
}

const textOf = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
};

/** A number of bytes for a person: 61.2 MB. */
export const bytesText = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** An ISO date (UTC, to the minute) of epoch milliseconds. */
export const dateText = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * Progress on standard error: a bar at a terminal; elsewhere (a log, a test) one line each
 * time the detail text changes, so that logs show the steps without a line per byte.
 */
export class Progress {
  private bar?: cliProgress.SingleBar;
  private lastDetail?: string;

  constructor(private readonly label: string) {}

  /** Shows `value` of `total` (bytes when `bytes`, else percent), with a detail such as a job's message. */
  update(value: number, total: number, detail = '', bytes = false): void {
    if (process.stderr.isTTY) {
      const shown = bytes ? `${bytesText(value)} of ${bytesText(total)}` : '';
      const payload = { label: this.label, detail: [shown, detail].filter(Boolean).join('  ') };
      if (!this.bar) {
        this.bar = new cliProgress.SingleBar(
          { format: '{label} [{bar}] {percentage}%  {detail}', stream: process.stderr, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(total, value, payload);
      } else {
        this.bar.setTotal(total);
        this.bar.update(value, payload);
      }
    } else if (detail && detail !== this.lastDetail) {
      this.lastDetail = detail;
      process.stderr.write(`${this.label}: ${detail}\n`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
