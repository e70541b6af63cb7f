/**
 * The bare relay the connector is measured against, in its own process: WebSocket → JSON.parse → NATS
 * publish of the frame, routed by tag. No validation, ordering, staleness, decimals or re-encoding.
 * Usage (by bench/run.ts): node dist/bench/relay.js <wsUrl> <natsUrl> <streams> [subject prefix, default bench.relay]
 */
import WebSocket from 'ws';
import { connect } from '@nats-io/transport-node';

async function main(): Promise<void> {
  const [wsUrl, natsUrl, count, prefix = 'bench.relay'] = process.argv.slice(2);
  if (wsUrl === undefined || natsUrl === undefined || count === undefined)
    throw new Error('usage: relay <ws> <nats> <n>');
  const nc = await connect({ servers: natsUrl, name: 'bench-relay' });
  const socket = new WebSocket(`${wsUrl}?token=relay`);
  const encoder = new TextEncoder();
  let acks = 0;
  socket.on('message', (data) => {
    const text = String(data);
    const frame = JSON.parse(text) as { messageType: string; tag?: string };
    if (frame.messageType === 'pricestream') {
      nc.publish(`${prefix}.${frame.tag ?? 'none'}`, encoder.encode(text));
    } else if (frame.messageType === 'subscribe' && ++acks === Number(count)) {
      process.send?.('ready');
    }
  });
  socket.on('open', () => {
    for (let i = 0; i < Number(count); i += 1) {
      socket.send(
        JSON.stringify({
          messageType: 'subscribe',
          instrument: 'BTC.USD',
          quantity: (0.01 * (i + 1)).toFixed(2),
          currency: 'BTC',
          accountGrpUuid: 'bench-group',
          tenor: 'T',
          tag: `r${i}`,
        }),
      );
    }
  });
  process.on('message', (message) => {
    if (message === 'stop') {
      socket.close();
      void nc.drain().then(() => process.exit(0));
    }
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`relay failed: ${String(error)}\n`);
  process.exit(1);
});
