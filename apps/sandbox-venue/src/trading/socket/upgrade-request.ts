import type { IncomingMessage } from 'node:http';

/** Path and raw (still percent-encoded) query parameters of an upgrade request; first occurrence wins. */
export function readUpgradeTarget(request: IncomingMessage): { path: string; rawParams: Map<string, string> } {
  const target = request.url ?? '/';
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const rawParams = new Map<string, string>();
  if (q !== -1) {
    for (const pair of target.slice(q + 1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      const value = eq === -1 ? '' : pair.slice(eq + 1);
      if (!rawParams.has(name)) rawParams.set(name, value);
    }
  }
  return { path, rawParams };
}

/** Percent-decodes a token; a malformed escape makes the token unusable (undefined). */
export function decodeParam(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
