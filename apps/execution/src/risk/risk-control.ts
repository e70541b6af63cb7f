/**
 * Risk control over NATS: read and change trading states (and the kill switch), read and change limits.
 * Every change is a compare-and-set in the store followed by its audit record; the reply says what is now in
 * effect. Requests are shared by the instances of an account (queue group); every instance sees the change
 * through its watch of the store.
 */
import {
  canonicalLimitSet,
  errorReply,
  KillSwitchRequest,
  riskSubjects,
  RiskControlError,
  RiskLimitsChange,
  RiskScopeQuery,
  TradingStateChange,
  type ErrorReply,
  type RiskAuditKind,
  type RiskAuditRecord,
  type RiskLimitsAnswer,
  type RiskLimitsChangeAnswer,
  type Subjects,
  type TradingStateChangeAnswer,
  type TradingStatesAnswer,
} from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { Clock } from '#actors';
import type { JsonLogger } from '#observability';
import type { AccountGroupCheck } from './account-group-check.js';
import { canonicalScopeId, resolveLimits, scopeKey, type Limits } from './limits.js';
import type { RiskAudit } from './risk-audit.js';
import type { RiskEngine } from './risk-engine.js';
import type { RiskControlWarning, RiskMetrics } from './risk-metrics.js';
import type { RiskStore, StoreWrite } from './risk-store.js';
import { restorationAfterLoss, RESTORED_VIA, type KnownControls } from './store-loss.js';

export const RISK_CONTROL_QUEUE = 'execution-risk';

export interface RiskControlDeps {
  engine: RiskEngine;
  store: RiskStore;
  audit: RiskAudit;
  clock: Clock;
  logger: JsonLogger;
  metrics?: RiskMetrics;
  /** Tells a change naming an account group the venue does not list (absent: not checked). */
  accountGroups?: AccountGroupCheck;
}

export class RiskControl {
  private subscriptions: BusSubscription[] = [];

  constructor(private readonly deps: RiskControlDeps) {}

  serve(responder: BusResponder, subjects: Subjects): void {
    const s = riskSubjects(subjects);
    const queue = RISK_CONTROL_QUEUE;
    this.subscriptions = [
      responder.respondToAny({ subject: s.stateGet, kind: 'risk.state.get', queue, handle: () => this.states() }),
      responder.respond({
        subject: s.stateSet,
        kind: 'risk.state.set',
        contract: TradingStateChange,
        queue,
        handle: (change) => this.setState(change, s.stateSet),
      }),
      responder.respond({
        subject: s.kill,
        kind: 'risk.kill',
        contract: KillSwitchRequest,
        queue,
        handle: (request) =>
          this.setState({ scope: 'global', state: 'HALTED', by: request.by, reason: request.reason }, s.kill),
      }),
      responder.respond({
        subject: s.limitsGet,
        kind: 'risk.limits.get',
        contract: RiskScopeQuery,
        queue,
        handle: (query) => this.limits(query),
      }),
      responder.respond({
        subject: s.limitsSet,
        kind: 'risk.limits.set',
        contract: RiskLimitsChange,
        queue,
        handle: (change) => this.setLimits(change, s.limitsSet),
      }),
    ];
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  states(): TradingStatesAnswer {
    const { states } = this.deps.engine.state;
    const all = [...states.entries.values()];
    return {
      ok: true,
      readable: states.readable,
      global: states.entries.get(scopeKey('global')) ?? { scope: 'global', state: 'ACTIVE', revision: 0 },
      accountGroups: all.filter((e) => e.scope === 'accountGroup'),
      strategies: all.filter((e) => e.scope === 'strategy'),
    };
  }

  /** Changes one scope's trading state (the kill switch is global HALTED), then stores its audit record. */
  async setState(
    change: Pick<TradingStateChange, 'scope' | 'id' | 'state' | 'by' | 'reason' | 'expectedRevision'>,
    via: string,
  ): Promise<TradingStateChangeAnswer> {
    const stored = { ...this.scoped(change), state: change.state };
    const done = await this.change('state', stored, via, change.expectedRevision, change.state, (s, revision) =>
      this.deps.store.writeState(s, revision).then((w) => (w.ok ? { ...w, before: w.before?.state ?? 'ACTIVE' } : w)),
    );
    if (!done.ok) return done;
    const warnings = await this.warningsFor(stored);
    return { ok: true, entry: { ...stored, revision: done.revision }, auditId: done.auditId, ...warnings };
  }

  /**
   * The trading-state store was found declared afresh (NATS lost it): what this instance knew is written back
   * (store-loss.ts), each as a change of the gateway's, audited `via: store-loss`, where the new bucket holds
   * nothing for the key (`kept`: something was written there since the loss, which is newer). Throws when the store
   * could not be written (the caller keeps orders refused and tries again); an audit record not stored is logged.
   */
  async restoreAfterLoss(known: KnownControls): Promise<{ restored: number; kept: number }> {
    const { states, limits } = restorationAfterLoss(known, new Date(this.deps.clock.now()).toISOString());
    const outcomes: (ErrorReply | { ok: true })[] = [];
    for (const stored of states) {
      outcomes.push(
        await this.change('state', stored, RESTORED_VIA, 0, stored.state, (s, revision) =>
          this.deps.store.writeState(s, revision).then((w) => (w.ok ? { ...w, before: w.before?.state ?? null } : w)),
        ),
      );
    }
    for (const stored of limits) {
      outcomes.push(
        await this.change('limits', stored, RESTORED_VIA, 0, stored.limits, (s, revision) =>
          this.deps.store.writeLimits(s, revision).then((w) => (w.ok ? { ...w, before: w.before ?? null } : w)),
        ),
      );
    }
    const failed = outcomes.find((o) => !o.ok && o.error.code === RiskControlError.StoreUnavailable);
    if (failed !== undefined && !failed.ok) throw new Error(failed.error.message);
    const kept = outcomes.filter((o) => !o.ok && o.error.code === RiskControlError.Conflict).length;
    return { restored: outcomes.length - kept, kept };
  }

  limits(query: RiskScopeQuery): RiskLimitsAnswer {
    const { limits } = this.deps.engine.state;
    const answer: RiskLimitsAnswer = { ok: true, file: limits.file, overrides: this.deps.store.limitOverrides };
    if (query.scope === undefined) return answer;
    const resolved = resolveLimits(limits, query.scope, query.scope === 'global' ? undefined : query.id);
    return { ...answer, effective: resolved.kind === 'limits' && resolved.limits ? limitSetOf(resolved.limits) : null };
  }

  /** Replaces (or with `limits: null` removes) one scope's run-time limits, then stores its audit record. */
  async setLimits(change: RiskLimitsChange, via: string): Promise<RiskLimitsChangeAnswer> {
    // stored, applied and written back in their one plain form: `001000` and `1E+3` are kept as `1000`
    const stored = { ...this.scoped(change), limits: change.limits === null ? null : canonicalLimitSet(change.limits) };
    const done = await this.change('limits', stored, via, change.expectedRevision, stored.limits, (s, revision) =>
      this.deps.store.writeLimits(s, revision).then((w) => (w.ok ? { ...w, before: w.before ?? null } : w)),
    );
    if (!done.ok) return done;
    const { scope, id, limits } = stored;
    return {
      ok: true,
      scope,
      ...(id !== undefined ? { id } : {}),
      limits,
      revision: done.revision,
      auditId: done.auditId,
      ...(await this.warningsFor(stored, 'limits')),
    };
  }

  /**
   * After a change is applied: an account group the venue does not list, or a strategy with no order, position or
   * limits of its own here (a mistyped or wrongly cased id), is told — never refused: a halt must work ahead of a
   * strategy's first order, and while the connector is down.
   */
  private async warningsFor(
    stored: { scope: string; id?: string },
    change: 'state' | 'limits' = 'state',
  ): Promise<{ warnings?: string[] }> {
    if (stored.id === undefined) return {};
    const check = this.deps.accountGroups;
    let warning: { reason: RiskControlWarning; text: string } | undefined;
    if (stored.scope === 'accountGroup' && check !== undefined) warning = await check.warningFor(stored.id);
    // (limits of a strategy's own are what a new strategy is given before its first order)
    else if (stored.scope === 'strategy' && change === 'state') warning = this.strategyWarning(stored.id);
    if (warning === undefined) return {};
    this.deps.metrics?.controlWarnings.inc({ reason: warning.reason });
    this.deps.logger.warn('risk change applied with a warning', { id: stored.id, warning: warning.text });
    return { warnings: [warning.text] };
  }

  private strategyWarning(id: string): { reason: RiskControlWarning; text: string } | undefined {
    const key = scopeKey('strategy', id);
    const { book, limits } = this.deps.engine.state;
    if (book.knows(key) || limits.fileLimits.has(key) || limits.overrides.has(key)) return undefined;
    return {
      reason: 'unknown-strategy',
      text:
        'strategy has no order, position or limits of its own here: it applies to no order until one names this id ' +
        '(strategy ids are case-sensitive)',
    };
  }

  /** Who, when and why of a change, for the store. */
  private scoped(change: Pick<TradingStateChange, 'scope' | 'id' | 'by' | 'reason'>) {
    const id =
      change.scope === 'global' || change.id === undefined ? undefined : canonicalScopeId(change.scope, change.id);
    const at = new Date(this.deps.clock.now()).toISOString();
    return { scope: change.scope, ...(id !== undefined ? { id } : {}), by: change.by, reason: change.reason, at };
  }

  /** Compare-and-set in the store, then the audit record: the one path of every change. */
  private async change<S extends ReturnType<RiskControl['scoped']>, A extends RiskAuditRecord['after']>(
    kind: RiskAuditKind,
    stored: S,
    via: string,
    expectedRevision: number | undefined,
    after: A,
    write: (stored: S, expectedRevision?: number) => Promise<StoreWrite<RiskAuditRecord['before']>>,
  ): Promise<{ ok: true; revision: number; auditId: string } | ErrorReply> {
    let written;
    try {
      written = await write(stored, expectedRevision);
    } catch (error) {
      return this.storeFailed(kind, error);
    }
    if (!written.ok) {
      this.deps.metrics?.controlChanges.inc({ kind, result: 'conflict' });
      return errorReply(RiskControlError.Conflict, `the ${kind} changed since expectedRevision; read it again`);
    }
    const { scope, id, by, reason, at } = stored;
    this.deps.logger.warn(`risk ${kind} changed`, { scope, id, after, by, reason, via });
    const auditId = this.deps.audit.newId();
    try {
      await this.deps.audit.record({
        id: auditId,
        kind,
        scope,
        ...(id !== undefined ? { scopeId: id } : {}),
        by,
        reason,
        at,
        via,
        before: written.before ?? null,
        after,
        revision: written.revision,
      });
    } catch (error) {
      return this.auditFailed(kind, error);
    }
    this.deps.metrics?.controlChanges.inc({ kind, result: 'applied' });
    return { ok: true, revision: written.revision, auditId };
  }

  private storeFailed(kind: RiskAuditKind, error: unknown): ErrorReply {
    this.deps.metrics?.controlChanges.inc({ kind, result: 'store-failed' });
    this.deps.logger.error('risk control could not write the store', { kind, error: messageOf(error) });
    return errorReply(
      RiskControlError.StoreUnavailable,
      'the risk store (NATS KV) could not be written; nothing changed',
    );
  }

  private auditFailed(kind: RiskAuditKind, error: unknown): ErrorReply {
    this.deps.metrics?.controlChanges.inc({ kind, result: 'audit-failed' });
    this.deps.logger.error('risk change applied but its audit record was not stored', {
      kind,
      error: messageOf(error),
    });
    return errorReply(
      RiskControlError.AuditNotStored,
      'the change is in effect but its audit record could not be stored',
    );
  }
}

/** Limits written back in the contract's form (decimals as strings). */
function limitSetOf(limits: Limits) {
  const amounts = (map: ReadonlyMap<string, { toFixed(): string }> | undefined) =>
    map === undefined
      ? undefined
      : Object.fromEntries([...map].map(([currency, amount]) => [currency, amount.toFixed()]));
  return {
    ...(limits.allowedInstruments ? { allowedInstruments: [...limits.allowedInstruments] } : {}),
    ...(limits.maxNotionalPerOrder ? { maxNotionalPerOrder: amounts(limits.maxNotionalPerOrder) } : {}),
    ...(limits.maxNotionalPerMinute ? { maxNotionalPerMinute: amounts(limits.maxNotionalPerMinute) } : {}),
    ...(limits.maxOrdersPerSecond !== undefined ? { maxOrdersPerSecond: limits.maxOrdersPerSecond } : {}),
    ...(limits.maxOrdersPerMinute !== undefined ? { maxOrdersPerMinute: limits.maxOrdersPerMinute } : {}),
    ...(limits.maxOpenExposure ? { maxOpenExposure: amounts(limits.maxOpenExposure) } : {}),
    ...(limits.maxQuoteAgeMs !== undefined ? { maxQuoteAgeMs: limits.maxQuoteAgeMs } : {}),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
