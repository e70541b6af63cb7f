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

  // Also LoggerService: Nest calls these with anything as the message (its ExceptionHandler passes the Error
  // itself) and its context, a string, last — so neither may be assumed a string or a field object here.
  info(msg: unknown, fields?: Record<string, unknown> | string): void {
    this.emit('info', msg, fieldsOf(fields, 'nestContext'));
  }
  warn(msg: unknown, fields?: Record<string, unknown> | string): void {
    this.emit('warn', msg, fieldsOf(fields, 'nestContext'));
  }
  /** Nest: `(message, stack?, context?)`. */
  error(msg: unknown, fields?: Record<string, unknown> | string, ...optional: unknown[]): void {
    this.emit('error', msg, { ...fieldsOf(fields, 'stack'), ...nestFields(optional) });
  }
  debug(msg: unknown, fields?: Record<string, unknown> | string): void {
    this.emit('debug', msg, fieldsOf(fields, 'nestContext'));
  }

  // LoggerService: Nest passes (message, ...optionalParams) with the context last.
  log(message: unknown, ...optional: unknown[]): void {
    this.emit('info', message, nestFields(optional));
  }
  verbose(message: unknown, ...optional: unknown[]): void {
    this.emit('debug', message, nestFields(optional));
  }

  private emit(level: LogLevel, msg: unknown, fields?: Record<string, unknown>): void {
    if (RANK[level] > RANK[this.minLevel]) return;
    // An Error as the message: its message is the line, its name and stack are fields (unless given).
    const error = msg instanceof Error ? { errorName: msg.name, stack: msg.stack } : undefined;
    const record = {
      time: new Date().toISOString(),
      level,
      app: this.app,
      context: this.context,
      msg: boundString(textOf(msg)),
      ...(forLog({ ...error, ...fields }) as Record<string, unknown>),
    };
    this.sink.write(JSON.stringify(record) + '\n');
  }
}

function textOf(msg: unknown): string {
  if (typeof msg === 'string') return msg;
  if (msg instanceof Error) return msg.message;
  try {
    return typeof msg === 'object' && msg !== null ? (JSON.stringify(msg) ?? String(msg)) : String(msg);
  } catch {
    return String(msg); // a cycle or a throwing toJSON: the object's tag, never a throw from the logger
  }
}

/** Fields as given; a bare string (what Nest passes there) is kept under `name`. */
function fieldsOf(fields: Record<string, unknown> | string | undefined, name: string): Record<string, unknown> {
  if (fields === undefined) return {};
  return typeof fields === 'string' ? { [name]: fields } : fields;
}

function nestFields(optional: unknown[]): Record<string, unknown> | undefined {
  if (optional.length === 0) return undefined;
  const context = optional[optional.length - 1];
  if (typeof context === 'string') return { nestContext: context };
  return optional.every((item) => item === undefined) ? undefined : { detail: optional };
}

/** LOG_LEVEL as the app's configuration validated it; a logger made before that (or in a test) falls back to info. */
function levelFromEnv(): LogLevel {
  const level = process.env['LOG_LEVEL'];
  return (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : 'info';
}
