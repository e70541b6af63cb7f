import {
  Inject,
  Injectable,
  type InjectionToken,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
  type Type,
} from '@nestjs/common';

/** What an app (or one of its modules) starts once every provider exists and stops at shutdown. */
export interface StartStop {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The provider that drives `token`'s `start()` at application bootstrap and its `stop()` when its module is
 * destroyed. Listed in the root module, the stop runs before the imported modules' shutdown hooks (the bus
 * drains after it): an app stops taking work first.
 */
export function lifecycleOf(token: InjectionToken<StartStop>): Type<OnApplicationBootstrap & OnModuleDestroy> {
  @Injectable()
  class Lifecycle implements OnApplicationBootstrap, OnModuleDestroy {
    constructor(@Inject(token) private readonly runtime: StartStop) {}
    async onApplicationBootstrap(): Promise<void> {
      await this.runtime.start();
    }
    async onModuleDestroy(): Promise<void> {
      await this.runtime.stop();
    }
  }
  // Named after what it drives (ConnectorRuntimeLifecycle, …) in Nest's errors and debug output.
  const of = typeof token === 'function' ? token.name : String(token);
  Object.defineProperty(Lifecycle, 'name', { value: `${of}Lifecycle` });
  return Lifecycle;
}
