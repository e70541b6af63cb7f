/**
 * Strict rules for environment variables, checked on the raw text before any conversion, so `0x10` is not a
 * port, `3e9` not an interval and an empty value not "any port". Each rule names the variable and its rule in
 * its message, never the value (it may be a secret, or huge). Used on config classes with `loadConfig`.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/** Longest time setting accepted anywhere: Node timers overflow above 2^31-1 ms (then fire every millisecond). */
export const MAX_TIMER_MS = 2_147_483_647;

const DECIMAL_INT = /^(0|[1-9][0-9]*)$/;
const INVALID = Symbol('invalid');

/** The raw text of a variable as the environment gave it (before class-transformer touched it). */
function raw(args: { obj: unknown; key: string }): unknown {
  return (args.obj as Record<string, unknown>)[args.key];
}

function rule(
  name: string,
  validate: (value: unknown, args?: ValidationArguments) => boolean,
  message: (property: string) => string,
): PropertyDecorator {
  return ValidateBy({
    name,
    validator: { validate, defaultMessage: (args?: ValidationArguments) => message(args?.property ?? 'value') },
  });
}

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorator of decorators) decorator(target, key);
  };
}

/** The variable must be set (a required setting has no default). */
export function EnvRequired(): PropertyDecorator {
  return rule(
    'envRequired',
    (value) => value !== undefined,
    (p) => `${p} must be set`,
  );
}

/** A decimal integer (digits only) within `[min, max]`; unset keeps the class default (or stays undefined). */
export function EnvInt(min: number, max: number): PropertyDecorator {
  return compose(
    Transform(({ obj, key, value }) => {
      const text = raw({ obj, key });
      if (text === undefined) return value;
      if (typeof text === 'number') return text;
      return typeof text === 'string' && DECIMAL_INT.test(text) ? Number(text) : INVALID;
    }),
    rule(
      'envInt',
      (value) => value === undefined || (typeof value === 'number' && Number.isSafeInteger(value)),
      (p) => `${p} must be a decimal integer (digits only) from ${min} to ${max}`,
    ),
    rule(
      'envIntRange',
      (value) => typeof value !== 'number' || (value >= min && value <= max),
      (p) => `${p} must be from ${min} to ${max}`,
    ),
  );
}

/** A duration in milliseconds: a decimal integer within `[min, max]` (max at most what a Node timer holds). */
export function EnvMs(min: number, max: number = MAX_TIMER_MS): PropertyDecorator {
  return EnvInt(min, Math.min(max, MAX_TIMER_MS));
}

/** A TCP port to listen on: 0 (any free port, said explicitly) to 65535; empty is refused. */
export function EnvPort(): PropertyDecorator {
  return EnvInt(0, 65_535);
}

/** Exactly one of `values` (case-sensitive: `ERROR` is not `error`). */
export function EnvEnum(values: readonly string[]): PropertyDecorator {
  return rule(
    'envEnum',
    (value) => value === undefined || (typeof value === 'string' && values.includes(value)),
    (p) => `${p} must be one of ${values.join(', ')}`,
  );
}

/** `true`/`false`/`1`/`0`; unset keeps the class default. */
export function EnvBoolean(): PropertyDecorator {
  return compose(
    Transform(({ obj, key, value }) => {
      const text = raw({ obj, key });
      if (text === undefined) return value;
      if (text === true || text === 'true' || text === '1') return true;
      if (text === false || text === 'false' || text === '0') return false;
      return INVALID;
    }),
    rule(
      'envBoolean',
      (value) => value === undefined || typeof value === 'boolean',
      (p) => `${p} must be true, false, 1 or 0`,
    ),
  );
}

export interface UrlRule {
  /** Accepted schemes without the colon, e.g. `['http', 'https']`. */
  schemes: readonly string[];
  /** Several URLs separated by commas (a NATS server list). */
  list?: boolean;
}

/** An absolute URL (or a comma-separated list) with one of `schemes`, a host, and no `#fragment`. */
export function EnvUrl(urlRule: UrlRule): PropertyDecorator {
  const schemes = urlRule.schemes.map((s) => `${s}://`).join(' or ');
  return rule(
    'envUrl',
    (value) => {
      if (value === undefined) return true;
      if (typeof value !== 'string' || value.trim() === '') return false;
      const parts = urlRule.list ? value.split(',') : [value];
      return parts.every((part) => urlProblem(part.trim(), urlRule.schemes) === undefined);
    },
    (p) =>
      `${p} must be ${urlRule.list ? 'a comma-separated list of URLs' : 'a URL'} starting ${schemes}, with a host and no #fragment`,
  );
}

function urlProblem(text: string, schemes: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (!schemes.includes(url.protocol.replace(/:$/, ''))) return 'scheme';
  if (url.hostname === '') return 'host';
  if (url.hash !== '' || text.includes('#')) return 'fragment';
  return undefined;
}

/** A DNS name: labels of letters, digits and hyphens (not at either end), dot-separated; 253 characters at most. */
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * An address to listen on: an IPv4 or IPv6 address, or a host name (`localhost`, `gw-1.internal`). Empty is refused
 * (it would listen on every interface).
 */
export function EnvHost(): PropertyDecorator {
  return rule(
    'envHost',
    (value) => value === undefined || (typeof value === 'string' && (isIP(value) !== 0 || HOSTNAME.test(value))),
    (p) => `${p} must be an IP address or a host name`,
  );
}

/** A non-empty string of at most `max` characters matching `pattern` (described in words for the message). */
export function EnvText(options: { max: number; pattern?: RegExp; describe?: string }): PropertyDecorator {
  const what = options.describe ?? `1 to ${options.max} characters`;
  return rule(
    'envText',
    (value) =>
      value === undefined ||
      (typeof value === 'string' &&
        value.length > 0 &&
        value.length <= options.max &&
        (options.pattern === undefined || options.pattern.test(value))),
    (p) => `${p} must be ${what}`,
  );
}

/**
 * Whether `path` is a directory this process can write, or a path where one can be made: the nearest part of it
 * that exists must be a writable directory (a file in the way failed only at the first use — `EEXIST … mkdir` —
 * after the app had started). Read-only: nothing is made. Other errors than "not there" are left to the use.
 */
export function directoryUsable(path: string): boolean {
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) return true;
      continue; // not there yet (made with its parents), or under a file (found next)
    }
    try {
      accessSync(at, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
}
