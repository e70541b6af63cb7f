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

/**
 * One rule across variables: its problem (a message naming the variables), several, or none (`undefined`, `[]`).
 * It reads the variables from the config it is given.
 */
export type CrossRule<T> = (config: T) => string | readonly string[] | undefined;

/** A config class may check rules across variables (e.g. an initial delay not above its maximum). */
export interface CrossChecked {
  /**
   * The rules, each on its own: one whose variables are all valid runs in the same pass as the single-variable
   * checks; one reading a variable that is itself bad is skipped (that variable is named already). Rules that
   * need the machine (a file readable) belong here too, so one start names every problem.
   */
  crossChecks(): readonly CrossRule<this>[];
}

/**
 * The one place an app reads its environment: `env` is mapped onto `ConfigClass` (decorated with the strict
 * rules of env-rules.ts or class-validator) and validated once at start-up, before anything is created.
 * Unknown variables are ignored; every failing one is listed by name with its rule, and in the same pass every
 * cross-variable rule of `crossChecks()` whose variables are valid (security tester: an operator fixed every
 * listed line, then met a second round of cross-variable and file problems).
 */
export function loadConfig<T extends object>(
  ConfigClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const config = plainToInstance(ConfigClass, env, { exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: true });
  const problems = errors.flatMap(describe);
  if (hasCrossChecks(config)) {
    problems.push(...crossProblems(config, new Set(errors.map((error) => error.property))));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function hasCrossChecks(config: object): config is CrossChecked {
  return typeof (config as Partial<CrossChecked>).crossChecks === 'function';
}

/** Thrown (and caught) when a rule reads a variable that failed its own check: the rule is not run further. */
const READS_INVALID = Symbol('reads an invalid variable');

/** The problems of every rule whose variables are valid; each rule sees the config through a guard. */
function crossProblems<T extends CrossChecked>(config: T, invalid: ReadonlySet<string>): string[] {
  const guarded = new Proxy(config, {
    get(target, key, receiver) {
      if (typeof key === 'string' && invalid.has(key)) throw READS_INVALID;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return config.crossChecks().flatMap((rule) => {
    let found: ReturnType<CrossRule<T>>;
    try {
      found = rule(guarded);
    } catch (error) {
      if (error === READS_INVALID) return [];
      throw error;
    }
    if (found === undefined) return [];
    return typeof found === 'string' ? [found] : [...found];
  });
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
