import { ConfigError, loadConfig } from '#observability';

/** What `loadConfig` refuses in `env`, one line per problem (none: `[]`); any other error is thrown. */
export function configProblems<T extends object>(
  ConfigClass: new () => T,
  env: Record<string, string | undefined>,
): string[] {
  try {
    loadConfig(ConfigClass, env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}
