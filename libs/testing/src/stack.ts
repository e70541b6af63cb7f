/**
 * The stack builder of every end-to-end suite: a real nats-server of its own, a venue, and any set of apps,
 * started in order and stopped in reverse, with an app or NATS restartable in the middle of a scenario.
 * What a venue or an app is comes from the caller (libraries never import apps): test/kit binds it to the
 * sandbox and to the gateway's apps, in-process or as child processes.
 */
import { rm } from 'node:fs/promises';
import { restartNatsServer, startNatsServer, type NatsServerHandle } from './nats-server.js';

/** Anything the stack starts: it can be stopped (idempotently). */
export interface Stoppable {
  close(): Promise<void>;
}

export interface StackContext<V> {
  readonly nats: NatsServerHandle;
  readonly venue: V;
}

export interface StackDefinition<V extends Stoppable, A extends Record<string, Stoppable>> {
  venue(nats: NatsServerHandle): Promise<V>;
  /** Started in the order given, each with the NATS server and the venue. */
  apps: { [K in keyof A]: (context: StackContext<V>) => Promise<A[K]> };
}

export interface RestartNatsOptions {
  emptyStore?: boolean;
}

export interface Stack<V extends Stoppable, A extends Record<string, Stoppable>> {
  readonly nats: NatsServerHandle;
  readonly venue: V;
  /** The running instance of each app (replaced by `restart`). */
  readonly apps: A;
  /** Stops one app and starts it again with the same definition; `whileDown` runs while it is stopped. */
  restart<K extends keyof A>(name: K, whileDown?: () => Promise<void>): Promise<A[K]>;
  /**
   * Kills nats-server and starts it again on the same port and store (file streams survive, memory ones not);
   * `whileDown`, when given, runs while it is down (e.g. to watch an outage's alerts fire). `emptyStore`: the
   * new server starts on a new, empty store (every stream, bucket and consumer lost), the old one is removed.
   */
  restartNats(whileDown?: () => Promise<void>, options?: RestartNatsOptions): Promise<void>;
  /** Apps in reverse order, then the venue, then NATS and its store. */
  stop(): Promise<void>;
}

export async function startStack<V extends Stoppable, A extends Record<string, Stoppable>>(
  definition: StackDefinition<V, A>,
): Promise<Stack<V, A>> {
  let nats = await startNatsServer();
  const venue = await definition.venue(nats);
  const apps = {} as A;
  const names = Object.keys(definition.apps) as Array<keyof A>;
  const context = (): StackContext<V> => ({ nats, venue });
  for (const name of names) apps[name] = await definition.apps[name](context());
  let keptStore: string | undefined;
  return {
    get nats() {
      return nats;
    },
    venue,
    apps,
    async restart(name, whileDown) {
      await apps[name].close();
      await whileDown?.();
      apps[name] = await definition.apps[name](context());
      return apps[name];
    },
    async restartNats(whileDown, options = {}) {
      const { storeDir } = nats;
      nats = await restartNatsServer(nats, { ...options, ...(whileDown ? { whileDown } : {}) });
      if (nats.storeDir === storeDir) keptStore = storeDir;
    },
    async stop() {
      for (const name of [...names].reverse()) await apps[name].close().catch(() => undefined);
      await venue.close();
      await nats.stop();
      if (keptStore !== undefined) await rm(keptStore, { recursive: true, force: true });
    },
  };
}
