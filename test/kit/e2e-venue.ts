/**
 * The sandbox venue for end-to-end suites, in the dialect of this run: `E2E_DIALECT` (`reference` unless
 * set; the jest project `e2e-alternate` runs the connector suites again with `alternate`), so every
 * scenario is proven against both readings of what the venue spec does not show.
 */
import { startSandboxVenue, type RunningSandbox } from '../../apps/sandbox-venue/src/bootstrap.js';
import type { SandboxOptions } from '../../apps/sandbox-venue/src/config.js';
import type { DialectName } from '../../apps/sandbox-venue/src/dialect.js';

export function e2eDialect(): DialectName {
  const name = process.env['E2E_DIALECT'] ?? 'reference';
  if (name !== 'reference' && name !== 'alternate') throw new Error(`E2E_DIALECT must be reference or alternate`);
  return name;
}

export function startE2eVenue(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandboxVenue({ dialect: e2eDialect(), ...options });
}
