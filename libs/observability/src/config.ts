import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { EXIT_CODE } from './exit-codes.js';

/** Start-up configuration that failed validation; lists every bad variable by name and rule, never a value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** A config class may check rules across variables (e.g. an initial delay not above its maximum). */
export interface CrossChecked {
  /** One message per broken rule, naming the variables; empty when all hold. */
  crossCheck(): string[];
}

/**
 * The one place an app reads its environment: `env` is mapped onto `ConfigClass` (decorated with the strict
 * rules of env-rules.ts or class-validator) and validated once at start-up, before anything is created.
 * Unknown variables are ignored; every failing one is listed by name with its rule, then the cross-field
 * rules of `crossCheck()` once every single variable is valid.
 */
export function loadConfig<T extends object>(
  ConfigClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const config = plainToInstance(ConfigClass, env, { exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) throw new ConfigError(errors.flatMap(describe));
  const crossProblems = hasCrossCheck(config) ? config.crossCheck() : [];
  if (crossProblems.length > 0) throw new ConfigError(crossProblems);
  return config;
}

function hasCrossCheck(config: object): config is CrossChecked {
  return typeof (config as Partial<CrossChecked>).crossCheck === 'function';
}

function describe(error: ValidationError): string[] {
  const own = Object.values(error.constraints ?? {}).map((rule) =>
    rule.startsWith(`${error.property} `) ? rule : `${error.property}: ${rule}`,
  );
  return [...own, ...(error.children ?? []).flatMap(describe)];
}

/**
 * For an app's `main`: a bad configuration is printed as plain lines on stderr — one per problem, then where
 * the settings are documented — and the process exits with 78 (EX_CONFIG), before anything was created.
 */
export function exitOnConfigError(error: ConfigError, app: string, docs: string): never {
  for (const problem of error.problems) process.stderr.write(`${app}: configuration: ${problem}\n`);
  process.stderr.write(`${app}: see ${docs} for every setting; nothing was started\n`);
  process.exit(EXIT_CODE.config);
}
