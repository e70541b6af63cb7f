import { describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { lifecycleOf, type StartStop } from './lifecycle.js';

class ProbeRuntime implements StartStop {
  readonly calls: string[] = [];
  start(): Promise<void> {
    this.calls.push('start');
    return Promise.resolve();
  }
  stop(): Promise<void> {
    this.calls.push('stop');
    return Promise.resolve();
  }
}

describe('lifecycleOf', () => {
  it('starts the runtime at bootstrap and stops it when the app closes', async () => {
    const runtime = new ProbeRuntime();
    const Lifecycle = lifecycleOf(ProbeRuntime);
    @Module({ providers: [{ provide: ProbeRuntime, useValue: runtime }, Lifecycle] })
    class ProbeModule {}
    const app = await NestFactory.createApplicationContext(ProbeModule, { logger: false });
    expect(runtime.calls).toEqual(['start']);
    await app.close();
    expect(runtime.calls).toEqual(['start', 'stop']);
    expect(Lifecycle.name).toBe('ProbeRuntimeLifecycle');
  });
});
