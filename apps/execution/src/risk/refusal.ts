import type { RiskRefusal } from './risk-gate.js';

const MAX_VALUE = 128;

/** A refusal with its code and the values that caused it (each value bounded: ids come from outside). */
export function refusal(code: string, message: string, values: Record<string, string>): RiskRefusal {
  const bounded: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    bounded[key] = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
  }
  return { ok: false, code, message, values: bounded };
}
