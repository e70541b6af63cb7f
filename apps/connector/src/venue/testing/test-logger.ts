import { JsonLogger } from '#observability';

/** A logger that keeps its lines (tests assert that secrets never reach them). */
export function captureLogger(): { logger: JsonLogger; lines: string[] } {
  const lines: string[] = [];
  const logger = new JsonLogger('connector-test', 'test', 'debug', { write: (line) => lines.push(line) });
  return { logger, lines };
}
