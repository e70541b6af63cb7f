/**
 * Where the CLI writes. On a terminal: colour (unless NO_COLOR) and a live block redrawn in place. Elsewhere
 * (a pipe, a file, a script): plain lines, no escape codes at all.
 */
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
  let drawn = 0;
  return {
    isTty,
    colour: isTty && process.env['NO_COLOR'] === undefined && process.env['TERM'] !== 'dumb',
    line: (text) => void out.write(`${text}\n`),
    redraw(lines) {
      if (!isTty) return;
      // up over the last block, then each line cleared before it is written
      const up = drawn > 0 ? `\x1b[${drawn}F` : '';
      out.write(up + lines.map((l) => `\x1b[2K${l}`).join('\n') + '\n' + (drawn > lines.length ? '\x1b[J' : ''));
      drawn = lines.length;
    },
    error: (text) => void err.write(`${text}\n`),
  };
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

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
