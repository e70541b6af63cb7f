import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { access } from 'node:fs/promises';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';

describe('startNatsServer', () => {
  let server: NatsServerHandle;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('starts a JetStream-enabled server on its own port, not the machine service on 4222', async () => {
    expect(server.port).not.toBe(4222);
    const nc = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'PROBE', subjects: ['probe.>'] });
    const info = await jsm.getAccountInfo();
    expect(info.streams).toBe(1);
    await nc.close();
  });

  it('removes its temporary store directory when stopped', async () => {
    const other = await startNatsServer();
    await other.stop();
    await expect(access(other.storeDir)).rejects.toThrow();
  });
});
