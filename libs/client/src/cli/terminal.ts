/**
 * Where the CLI writes. On a terminal: colour (unless NO_COLOR) and a live block redrawn in place. Elsewhere
 * (a pipe, a file, a script): plain lines, no escape codes at all.
 *
 * What the CLI prints comes largely from data others wrote: an audit reason, a venue's name or message, a stream's
 * name. Every line is written through `safeLine`: a control, format (bidi, zero-width) or line-separator character
 * in it is shown as `\uXXXX`, so data cannot move the cursor, erase or fake a line, or reorder text (security
 * tester: a reason of `ESC[2K`, CR and a made-up line showed a HALTED strategy as `global ACTIVE (all clear)`). The
 * CLI's own colour codes (`paint`) are the only escape sequences it writes; the rendering functions pass data
 * through `printable` first, so data cannot forge even those.
 */
import { escapeUnprintable } from '#contracts';

export interface Terminal {
  readonly isTty: boolean;
  readonly colour: boolean;
  line(text: string): void;
  /** Replaces the block drawn last with `lines` (on a terminal); elsewhere prints nothing. */
  redraw(lines: string[]): void;
  error(text: string): void;
}

export function processTerminal(
  out: NodeJS.WriteStream = process.stdout,
  err: NodeJS.WriteStream = process.stderr,
): Terminal {
  const isTty = out.isTTY === true;
  const colour = isTty && process.env['NO_COLOR'] === undefined && process.env['TERM'] !== 'dumb';
  let drawn = 0;
  return {
    isTty,
    colour,
    line: (text) => void out.write(`${safeLine(text, colour)}\n`),
    redraw(lines) {
      if (!isTty) return;
      // up over the last block, then each line cleared before it is written
      const up = drawn > 0 ? `\x1b[${drawn}F` : '';
      const cleared = lines.map((l) => `\x1b[2K${safeLine(l, colour)}`);
      out.write(up + cleared.join('\n') + '\n' + (drawn > lines.length ? '\x1b[J' : ''));
      drawn = lines.length;
    },
    error: (text) => void err.write(`${safeLine(text, colour)}\n`),
  };
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

/** One of paint's colour codes (or its reset), or one character a terminal would act on or that reorders or hides text. */
const OWN_CODE_OR_UNPRINTABLE = new RegExp(
  `\\x1b\\[(?:0|${Object.values(CODES).join('|')})m|[\\p{Cc}\\p{Cf}\\p{Cs}\\u2028\\u2029]`,
  'gu',
);

/**
 * A line as written: paint's colour codes kept (with colour), every other control, format or line-separator
 * character written as `\uXXXX` — line ends included (each call writes one line), so a JSON document stays JSON
 * with the same value (only characters inside its strings are escaped).
 */
export function safeLine(text: string, colour: boolean): string {
  return text.replace(OWN_CODE_OR_UNPRINTABLE, (found) =>
    found.length > 1 && colour ? found : escapeUnprintable(found),
  );
}

/**
 * Data as the rendering functions show it: every string in it (deeply) with its control, format and
 * line-separator characters written as `\uXXXX` — so a value cannot forge even the CLI's colour codes.
 */
export function printable<T>(value: T): T {
  if (typeof value === 'string') return escapeUnprintable(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => printable(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, printable(item)])) as T;
}

export function paint(terminal: Pick<Terminal, 'colour'>, colour: Colour, text: string): string {
  return terminal.colour ? `\x1b[${CODES[colour]}m${text}\x1b[0m` : text;
}

/** Display width of a text without its colour codes. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').length;
}

/** Aligned columns (first row: headings). */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell))))
      .join('  ')
      .trimEnd(),
  );
}
