/** A failure as `--json` prints it: one object on stdout, so a script reading stdout always gets a document. */
import { GatewayError, OutcomeUnknownError } from '../gateway-error.js';

export interface FailureDocument {
  error: { code: string; message: string; nextStep?: string; idempotencyKey?: string };
}

export function failureDocument(error: unknown): FailureDocument {
  if (!(error instanceof GatewayError)) {
    return { error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } };
  }
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.nextStep !== undefined ? { nextStep: error.nextStep } : {}),
      ...(error instanceof OutcomeUnknownError ? { idempotencyKey: error.idempotencyKey } : {}),
    },
  };
}
