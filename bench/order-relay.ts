/**
 * The bare two-hop relay the order path is measured against, one process per hop:
 *   first:  NATS `bench.order.place` → publish `bench.order.command` (what the execution app's hop is)
 *   second: NATS `bench.order.command` → WebSocket order frame to the venue (what the connector's hop is)
 * No validation, journal, risk, durability or pacing. Usage: node dist-bench/bench/order-relay.js <first|second> <nats> [ws]
 */
import WebSocket from 'ws';
import { connect } from '@nats-io/transport-node';

async function main(): Promise<void> {
  const [role, natsUrl, wsUrl] = process.argv.slice(2);
  if (natsUrl === undefined || (role !== 'first' && role !== 'second'))
    throw new Error('usage: order-relay <first|second> <nats> [ws]');
  const nc = await connect({ servers: natsUrl, name: `bench-order-relay-${role}` });
  if (role === 'first') {
    nc.subscribe('bench.order.place', { callback: (_error, msg) => nc.publish('bench.order.command', msg.data) });
    await nc.flush();
    process.send?.('ready');
  } else {
    if (wsUrl === undefined) throw new Error('the second hop needs the venue WebSocket');
    const socket = new WebSocket(`${wsUrl}?token=relay`);
    const decoder = new TextDecoder();
    socket.on('open', () => {
      nc.subscribe('bench.order.command', {
        callback: (_error, msg) => {
          const { id } = JSON.parse(decoder.decode(msg.data)) as { id: string };
          socket.send(JSON.stringify({ messageType: 'order', clientRequestId: id }));
        },
      });
      void nc.flush().then(() => process.send?.('ready'));
    });
  }
  process.on('message', (message) => {
    if (message === 'stop') void nc.drain().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`order relay failed: ${String(error)}\n`);
  process.exit(1);
});
