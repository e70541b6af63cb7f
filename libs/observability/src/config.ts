import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';

/** Start-up configuration that failed validation; lists every bad variable, never a value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The one place an app reads its environment: `env` is mapped onto `ConfigClass` (decorated with
 * class-validator; numbers and booleans need class-transformer's `@Type(() => Number)` / `@Transform`, since
 * ts-jest transpiles without type metadata) and validated once at start-up.
 * Unknown variables are ignored; every failing one is listed by name with its rule.
 */
export function loadConfig<T extends object>(
  ConfigClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const config = plainToInstance(ConfigClass, env, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) throw new ConfigError(errors.flatMap(describe));
  return config;
}

function describe(error: ValidationError): string[] {
  const own = Object.values(error.constraints ?? {}).map((rule) => `${error.property}: ${rule}`);
  return [...own, ...(error.children ?? []).flatMap(describe)];
}
