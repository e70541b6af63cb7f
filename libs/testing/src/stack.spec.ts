import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startStack } from './stack.js';

describe('startStack', () => {
  it('starts NATS, the venue and the apps in order, restarts one, and stops in reverse order', async () => {
    const events: string[] = [];
    const part = (name: string) => ({
      close: async () => {
        events.push(`close ${name}`);
      },
    });
    let generation = 0;
    const stack = await startStack({
      venue: async (nats) => {
        events.push(`venue on ${nats.url === '' ? '?' : 'nats'}`);
        return part('venue');
      },
      apps: {
        first: async ({ venue }) => {
          events.push(`first ${venue !== undefined}`);
          return part('first');
        },
        second: async () => {
          generation += 1;
          events.push(`second #${generation}`);
          return part(`second #${generation}`);
        },
      },
    });
    const client = await connect({ servers: stack.nats.url });
    await client.close(); // a real server of its own
    await stack.restart('second', async () => {
      events.push('while second is down');
    });
    await stack.stop();
    expect(events).toEqual([
      'venue on nats',
      'first true',
      'second #1',
      'close second #1',
      'while second is down',
      'second #2',
      'close second #2',
      'close first',
      'close venue',
    ]);
  });

  it('restarts NATS on the same port, running `whileDown` while no server answers', async () => {
    const stack = await startStack({ venue: async () => ({ close: async () => undefined }), apps: {} });
    const { url } = stack.nats;
    let refusedWhileDown = false;
    await stack.restartNats(async () => {
      refusedWhileDown = await connect({ servers: url, reconnect: false }).then(
        async (c) => (await c.close(), false),
        () => true,
      );
    });
    const client = await connect({ servers: url });
    await client.close();
    await stack.stop();
    expect(refusedWhileDown).toBe(true);
    expect(stack.nats.url).toBe(url);
  });

  it('restarts NATS on the same port with a new, empty store when asked (every stream lost)', async () => {
    const stack = await startStack({ venue: async () => ({ close: async () => undefined }), apps: {} });
    const { url, storeDir } = stack.nats;
    const streamNames = async (): Promise<string[]> => {
      const client = await connect({ servers: url });
      const names: string[] = [];
      for await (const name of (await jetstreamManager(client)).streams.names()) names.push(name);
      await client.close();
      return names;
    };
    const client = await connect({ servers: url });
    await (await jetstreamManager(client)).streams.add({ name: 'KEPT', subjects: ['kept'], storage: StorageType.File });
    await client.close();
    await stack.restartNats();
    expect(await streamNames()).toEqual(['KEPT']); // the same store: file streams survive
    await stack.restartNats(undefined, { emptyStore: true });
    expect(await streamNames()).toEqual([]);
    expect(stack.nats.url).toBe(url);
    expect(stack.nats.storeDir).not.toBe(storeDir);
    expect(existsSync(storeDir)).toBe(false);
    await stack.stop();
  });
});
