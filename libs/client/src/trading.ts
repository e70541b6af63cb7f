/**
 * Trading states of the execution app's pre-trade risk (docs/execution-risk.md): read them, halt (the kill
 * switch, `…exec.risk.kill`) and resume (`…exec.risk.state.set` global ACTIVE). Every change names who made
 * it and why (kept in the audit stream).
 */
import {
  riskSubjects,
  type RiskScopeKind,
  type TradingState,
  type TradingStateChanged,
  type TradingStateEntry,
  type TradingStatesReply,
} from '#contracts';
import { gatewayRequest, type ClientContext } from './client-context.js';

export interface TradingChange {
  /** Who makes the change (kept in the audit record). */
  by: string;
  reason: string;
}

export class TradingApi {
  constructor(private readonly context: ClientContext) {}

  private get subjects(): ReturnType<typeof riskSubjects> {
    return riskSubjects(this.context.subjects);
  }

  /** Global, account-group and strategy states (`readable: false`: the store cannot be read; orders are refused). */
  states(): Promise<TradingStatesReply> {
    return gatewayRequest<TradingStatesReply>(this.context, this.subjects.stateGet, {});
  }

  /** The kill switch: global HALTED; every new order is refused until resumed. */
  async halt(change: TradingChange): Promise<TradingStateEntry> {
    return (await gatewayRequest<TradingStateChanged>(this.context, this.subjects.kill, { ...change, halt: true }))
      .entry;
  }

  /** Global ACTIVE again. */
  resume(change: TradingChange): Promise<TradingStateEntry> {
    return this.setState({ scope: 'global', state: 'ACTIVE', ...change });
  }

  /**
   * One scope's state (global, an account group or a strategy). `warnings`: the change is applied, and the
   * operator should know more — an account group the venue does not list (a typo halts nothing), or that it
   * could not be checked.
   */
  async setState(
    change: TradingChange & { scope: RiskScopeKind; id?: string; state: TradingState; expectedRevision?: number },
  ): Promise<TradingStateEntry & { warnings?: string[] }> {
    const answer = await gatewayRequest<TradingStateChanged>(this.context, this.subjects.stateSet, change);
    return answer.warnings === undefined ? answer.entry : { ...answer.entry, warnings: answer.warnings };
  }
}
