import cliProgress from 'cli-progress';

/**
 * Control characters (C0, DEL, C1) and bidirectional overrides, which a terminal would obey:
 * a room name or marker title holding `ESC ]` could retitle the window, write the clipboard
 * or rewrite what was printed before it. JSON.stringify escapes C0 itself, not the others.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Text for a terminal: each control character shown as its `\uXXXX` escape. Inside a JSON
 * string that escape is the same character, so a JSON line stays the same value.
 */
export const printable = (text: string) => text.replace(UNPRINTABLE, escaped);

/** JSON text (pretty-printed: its line breaks kept) for a terminal: the same value, without raw controls. */
export const printableJson = (value: unknown, indent?: number) =>
  JSON.stringify(value, null, indent).replace(UNPRINTABLE_IN_JSON, escaped);

/**
 * What a command prints. Results go to standard output: JSON with `--json`, else lines and
 * tables for a person. Progress and notes go to standard error, so that `> file` and pipes
 * receive the result alone.
 */
export class Output {
  constructor(readonly json: boolean) {}

  /** Prints the command's result: as JSON for scripts, else as `human` writes it. */
  result(value: unknown, human: () => void): void {
    if (this.json) process.stdout.write(`${printableJson(value, 2)}\n`);
    else human();
  }

  /** A line of standard output; text from the service in it is made printable. */
  line(text = ''): void {
    process.stdout.write(`${printable(text)}\n`);
  }

  /** A note for the person at the terminal (standard error). */
  note(text: string): void {
    process.stderr.write(`${printable(text)}\n`);
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
  if (Array.isArray(value)) return printable(value.join(', '));
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return printable(String(value));
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
      const payload = { label: printable(this.label), detail: printable([shown, detail].filter(Boolean).join('  ')) };
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
      process.stderr.write(`${printable(`${this.label}: ${detail}`)}\n`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
