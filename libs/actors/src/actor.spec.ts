import { describe, expect, it } from '@jest/globals';
import { Actor, type Transition } from './actor.js';

type Event = { type: 'add'; n: number } | { type: 'slow' } | { type: 'boom' };
type Effect = { type: 'log'; text: string } | { type: 'wait' } | { type: 'echo'; n: number };

function counter(log: string[], gate?: Promise<void>): Actor<number, Event, Effect, { now: number }> {
  return new Actor<number, Event, Effect, { now: number }>({
    name: 'counter',
    initial: 0,
    environment: () => ({ now: 42 }),
    transition: (state, event, env): Transition<number, Effect> => {
      switch (event.type) {
        case 'add':
          return { state: state + event.n, effects: [{ type: 'log', text: `add ${event.n} at ${env.now}` }] };
        case 'slow':
          return { state, effects: [{ type: 'wait' }, { type: 'log', text: 'after wait' }] };
        case 'boom':
          throw new Error('bad event');
      }
    },
    execute: (effect, self) => {
      if (effect.type === 'log') log.push(effect.text);
      else if (effect.type === 'echo') self.send({ type: 'add', n: effect.n });
      else return gate;
    },
    onError: (error) => log.push(`error: ${(error as Error).message}`),
  });
}

describe('Actor', () => {
  it('handles synchronous effects in the caller turn, one event at a time', () => {
    const log: string[] = [];
    const actor = counter(log);
    actor.send({ type: 'add', n: 2 });
    actor.send({ type: 'add', n: 3 });
    expect(actor.state).toBe(5);
    expect(log).toEqual(['add 2 at 42', 'add 3 at 42']);
  });

  it('parks the mailbox on an asynchronous effect: later events wait for it', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const actor = counter(log, gate);
    actor.send({ type: 'slow' });
    actor.send({ type: 'add', n: 1 });
    expect(actor.state).toBe(0);
    expect(log).toEqual([]);
    open();
    await actor.idle();
    expect(log).toEqual(['after wait', 'add 1 at 42']);
    expect(actor.state).toBe(1);
  });

  it('an event an effect sends to its own actor is handled after the current effects, in the same turn', () => {
    const log: string[] = [];
    const actor = new Actor<number, Event, Effect, { now: number }>({
      name: 'echo',
      initial: 0,
      environment: () => ({ now: 1 }),
      transition: (state, event) =>
        event.type === 'add' && event.n === 1
          ? {
              state: state + 1,
              effects: [
                { type: 'echo', n: 10 },
                { type: 'log', text: 'after echo' },
              ],
            }
          : { state: state + (event.type === 'add' ? event.n : 0), effects: [{ type: 'log', text: `state ${state}` }] },
      execute: (effect, self) => {
        if (effect.type === 'echo') self.send({ type: 'add', n: effect.n });
        else if (effect.type === 'log') log.push(effect.text);
      },
    });
    actor.send({ type: 'add', n: 1 });
    expect(log).toEqual(['after echo', 'state 1']);
    expect(actor.state).toBe(11);
  });

  it('resolves idle() at once when nothing is pending, and after a parked effect otherwise', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const actor = counter([], gate);
    await actor.idle();
    actor.send({ type: 'slow' });
    let idle = false;
    const waiting = actor.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    open();
    await waiting;
    expect(idle).toBe(true);
  });

  it('reports a throwing transition and goes on with the next event', () => {
    const log: string[] = [];
    const actor = counter(log);
    actor.send({ type: 'boom' });
    actor.send({ type: 'add', n: 1 });
    expect(log).toEqual(['error: bad event', 'add 1 at 42']);
    expect(actor.state).toBe(1);
  });

  it('publishes each new state and completes at stop; events after stop are dropped', async () => {
    const actor = counter([]);
    const seen: number[] = [];
    let completed = false;
    actor.state$.subscribe({ next: (s) => seen.push(s), complete: () => (completed = true) });
    actor.send({ type: 'add', n: 1 });
    await actor.stop();
    actor.send({ type: 'add', n: 1 });
    expect(seen).toEqual([0, 1]);
    expect(completed).toBe(true);
    expect(actor.state).toBe(1);
  });
});
