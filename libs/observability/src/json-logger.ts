import type { LoggerService } from '@nestjs/common';
import { boundString, forLog } from './redact.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface LogSink {
  write(line: string): void;
}

/**
 * Structured logs: one JSON object per line on stdout, `{time, level, app, context, msg, ...fields}`.
 * Fields pass through `forLog`: a secret-named property never reaches the sink, and no field is unbounded
 * (strings, lists and depth are capped, saying what was cut). Implements Nest's
 * LoggerService so framework messages come out in the same shape.
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly app: string,
    private readonly context = 'app',
    private readonly minLevel: LogLevel = levelFromEnv(),
    private readonly sink: LogSink = process.stdout,
  ) {}

  child(context: string): JsonLogger {
    return new JsonLogger(this.app, context, this.minLevel, this.sink);
  }

  info(msg: string, fields?: Record<string, unknown>): void {
    this.emit('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.emit('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown> | string): void {
    this.emit('error', msg, typeof fields === 'string' ? { stack: fields } : fields);
  }
  debug(msg: string, fields?: Record<string, unknown>): void {
    this.emit('debug', msg, fields);
  }

  // LoggerService: Nest passes (message, ...optionalParams) with the context last.
  log(message: unknown, ...optional: unknown[]): void {
    this.emit('info', String(message), nestFields(optional));
  }
  verbose(message: unknown, ...optional: unknown[]): void {
    this.emit('debug', String(message), nestFields(optional));
  }

  private emit(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    if (RANK[level] > RANK[this.minLevel]) return;
    const record = {
      time: new Date().toISOString(),
      level,
      app: this.app,
      context: this.context,
      msg: boundString(msg),
      ...(fields ? (forLog(fields) as Record<string, unknown>) : {}),
    };
    this.sink.write(JSON.stringify(record) + '\n');
  }
}

function nestFields(optional: unknown[]): Record<string, unknown> | undefined {
  if (optional.length === 0) return undefined;
  const context = optional[optional.length - 1];
  return typeof context === 'string' ? { nestContext: context } : { detail: optional };
}

/** LOG_LEVEL as the app's configuration validated it; a logger made before that (or in a test) falls back to info. */
function levelFromEnv(): LogLevel {
  const level = process.env['LOG_LEVEL'];
  return (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : 'info';
}
