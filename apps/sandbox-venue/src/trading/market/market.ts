import { Decimal } from '../../money.js';
import { Subject, type Observable } from 'rxjs';
import { INSTRUMENTS, type InstrumentInfo } from '../../reference/instruments.js';
import { SeededRandom, seedFor } from './seeded-random.js';

/** Steps of the random walk are drawn as integers in [-STEP_RESOLUTION, STEP_RESOLUTION] / STEP_RESOLUTION. */
const STEP_RESOLUTION = 1_000_000;
/** Mids keep a few more significant digits than prices are quoted with, so the walk is smooth. */
const MID_EXTRA_DIGITS = 4;
/**
 * Per step, the walk is pulled this fraction of the way back toward its anchor (the seed mid, or the
 * operator's last set or jumped mid), so a sandbox left running for days stays near realistic prices and
 * an operator's move holds.
 */
const MEAN_REVERSION = '0.001';

interface InstrumentState {
  readonly info: InstrumentInfo;
  readonly random: SeededRandom;
  mid: Decimal;
  anchor: Decimal;
  halted: boolean;
  /** Not priced, without a word to subscribers (a feed gone quiet): their streams simply stop updating. */
  silenced: boolean;
}

export interface HaltEvent {
  instrument: string;
  reason: string;
}

/**
 * The sandbox market: one seeded random-walk mid per streaming instrument, moved on its own timer and by
 * the operator. Quotes are built from it on each connection's cadence (§2.2 rule 3), never per tick.
 */
export class Market {
  private readonly states = new Map<string, InstrumentState>();
  private readonly halts = new Subject<HaltEvent>();
  private timer: NodeJS.Timeout | undefined;

  constructor(seed: number, instruments: readonly InstrumentInfo[] = INSTRUMENTS) {
    for (const info of instruments) {
      this.states.set(info.instrument, {
        info,
        random: new SeededRandom(seedFor(seed, info.instrument)),
        mid: new Decimal(info.initialMid),
        anchor: new Decimal(info.initialMid),
        halted: false,
        silenced: false,
      });
    }
  }

  /** Operator halts: subscribers stop their streams (W11). */
  get halted$(): Observable<HaltEvent> {
    return this.halts.asObservable();
  }

  start(tickMs: number): void {
    this.stop();
    this.timer = setInterval(() => this.step(), tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  instrument(name: string): InstrumentInfo | undefined {
    return this.states.get(name)?.info;
  }

  instruments(): InstrumentInfo[] {
    return [...this.states.values()].map((s) => s.info);
  }

  /** The current mid; undefined for an unknown instrument. */
  mid(name: string): Decimal | undefined {
    return this.states.get(name)?.mid;
  }

  isHalted(name: string): boolean {
    return this.states.get(name)?.halted ?? false;
  }

  isSilenced(name: string): boolean {
    return this.states.get(name)?.silenced ?? false;
  }

  /** One step of every instrument's walk. */
  step(): void {
    for (const state of this.states.values()) {
      const draw = new Decimal(state.random.nextSymmetricInt(STEP_RESOLUTION)).div(STEP_RESOLUTION);
      const factor = new Decimal(1).plus(draw.times(state.info.volatility));
      const walked = state.mid.times(factor);
      const pull = state.anchor.minus(walked).times(MEAN_REVERSION);
      state.mid = this.round(state.info, walked.plus(pull));
    }
  }

  setMid(name: string, mid: Decimal): boolean {
    const state = this.states.get(name);
    if (state === undefined || !mid.isFinite() || mid.lte(0)) return false;
    state.mid = this.round(state.info, mid);
    state.anchor = state.mid;
    return true;
  }

  /** Moves the mid by `percent` (e.g. "-5" for a 5 % drop). */
  jump(name: string, percent: Decimal): boolean {
    const state = this.states.get(name);
    if (state === undefined) return false;
    return this.setMid(name, state.mid.times(new Decimal(100).plus(percent)).div(100));
  }

  halt(name: string, reason = 'Instrument halted by the venue'): boolean {
    const state = this.states.get(name);
    if (state === undefined) return false;
    state.halted = true;
    this.halts.next({ instrument: name, reason });
    return true;
  }

  /** The instrument's prices stop with no streamStop: a subscriber sees only silence (until `resume`). */
  silence(name: string): boolean {
    const state = this.states.get(name);
    if (state === undefined) return false;
    state.silenced = true;
    return true;
  }

  /** Ends a halt or a silence. */
  resume(name: string): boolean {
    const state = this.states.get(name);
    if (state === undefined) return false;
    state.halted = false;
    state.silenced = false;
    return true;
  }

  private round(info: InstrumentInfo, mid: Decimal): Decimal {
    return mid.toSignificantDigits(info.priceSignificantDigits + MID_EXTRA_DIGITS, Decimal.ROUND_HALF_EVEN);
  }
}
