/**
 * Hooks the trading half's WebSocket server (`/svc/ws/ws-client`) onto the HTTP server. Kept apart from
 * `bootstrap.ts` so the two halves meet in one small file.
 */
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { TradingSocketServer } from './trading/socket/trading-socket-server.js';

export function attachTrading(app: INestApplication): () => Promise<void> {
  const sockets = app.get(TradingSocketServer);
  sockets.attach(app.getHttpServer() as Server);
  return () => sockets.close();
}
