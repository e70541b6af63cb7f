/**
 * `gw withdrawals`: list (the venue's lists), `submit`, `cancel`. A submit names its request with an
 * idempotency key (default: a new one, printed on stderr before it is sent): repeating the command with the
 * same `--key` never creates a second withdrawal. A submit of unknown outcome is said as UNKNOWN, exit 3: the
 * gateway's answer UNKNOWN (it settles it from the venue's lists; never re-sent), or no answer at all (re-run
 * with the same `--key`, or `gw withdrawals get --key`). Answered SUBMITTING (its send mark could not be written:
 * not sent yet, sent once it can be) is exit 3 too: not done, the same way on.
 */
import type { WithdrawalListItem, WithdrawalView } from '#contracts';
import { OutcomeUnknownError } from '../gateway-error.js';
import { answerOrInterrupt } from './interrupt.js';
import { COMMON_FLAGS, keyOption, positiveInt, usage, type ClientSource } from './options.js';
import { paint, printable, table, type Terminal } from './terminal.js';
import { announceKey, EXIT_OUTCOME_UNKNOWN, unansweredJson, unansweredLines } from './unanswered-write.js';

export const WITHDRAWALS_HELP = `gw withdrawals [list] [--kind fiat|crypto] [--limit <n>]
gw withdrawals submit <fiat|crypto> <amount> <ccy> --group <uuid> (--bank-account <uuid> | --wallet <uuid>) [--key <k>] [--comment <text>]
gw withdrawals cancel <requestId> | --key <k> [--group <uuid>]
gw withdrawals get <requestId> | --key <k>
  --key <k>        submit: the idempotency key (default: a new one, printed on stderr before the request is sent)
  --group <uuid>   cancel: the account group, needed only for a request restored from a fiat row that showed none
                   (its group reads ''; the venue's cancel takes it)
  --timeout <s>    how long to wait for account-sync's answer (default 15; submit and cancel 35: they wait for the venue)
  --json           one JSON document
  Exit code of submit: 0 answered, 1 refused or NOT_FOUND (never created: the venue's lists never showed it —
  check the venue's records before a new key), 3 not known yet — UNKNOWN (the gateway settles it from the venue's
  lists), SUBMITTING (not sent yet: the gateway sends it once it can) or no answer at all: re-run with the same
  --key (never without it), or \`gw withdrawals get --key <k>\`.`;

export const WITHDRAWALS_FLAGS = {
  ...COMMON_FLAGS,
  kind: { type: 'string' },
  limit: { type: 'string' },
  group: { type: 'string' },
  'bank-account': { type: 'string' },
  wallet: { type: 'string' },
  key: { type: 'string' },
  comment: { type: 'string' },
} as const;

type Output = { json: boolean; terminal: Terminal; signal?: AbortSignal };

export async function runWithdrawals(
  client: ClientSource,
  values: Record<string, unknown>,
  positionals: string[],
  output: Output,
): Promise<number> {
  const [action = 'list', ...rest] = positionals;
  const key = keyOption('withdrawals', values);
  switch (action) {
    case 'list': {
      const kind = values['kind'];
      if (kind !== undefined && kind !== 'fiat' && kind !== 'crypto')
        throw usage('withdrawals', '--kind must be fiat or crypto');
      const limit = positiveInt('withdrawals', 'limit', values['limit']);
      const list = await (
        await client()
      ).withdrawals.list({
        ...(kind !== undefined ? { kind } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      if (output.json) output.terminal.line(JSON.stringify(list));
      else for (const line of withdrawalListTable(list.withdrawals, list.truncated)) output.terminal.line(line);
      return 0;
    }
    case 'submit': {
      const [kind, amount, ccy] = rest;
      if ((kind !== 'fiat' && kind !== 'crypto') || amount === undefined || ccy === undefined) {
        throw usage('withdrawals', 'gw withdrawals submit needs <fiat|crypto> <amount> <ccy>');
      }
      const group = values['group'];
      if (typeof group !== 'string') throw usage('withdrawals', '--group <account group uuid> is required');
      const bank = values['bank-account'];
      const wallet = values['wallet'];
      const idempotencyKey = announceKey(key, output.terminal);
      let view: WithdrawalView;
      try {
        const submitted = (await client()).withdrawals.submit({
          kind,
          amount,
          ccy,
          accountGroupUuid: group,
          ...(typeof bank === 'string' ? { bankAccountUuid: bank } : {}),
          ...(typeof wallet === 'string' ? { walletUuid: wallet } : {}),
          ...(typeof values['comment'] === 'string' ? { clientComment: values['comment'] } : {}),
          idempotencyKey,
        });
        view = await answerOrInterrupt(submitted, output.signal, 'withdrawal', idempotencyKey);
      } catch (error) {
        if (!(error instanceof OutcomeUnknownError)) throw error;
        const write = { what: 'withdrawal', idempotencyKey, lookUp: `gw withdrawals get --key ${idempotencyKey}` };
        if (output.json) output.terminal.line(JSON.stringify(unansweredJson(write, error)));
        else {
          const heading = `withdrawal (key ${idempotencyKey}): `;
          for (const line of unansweredLines(heading, write, error, output.terminal)) output.terminal.line(line);
        }
        return EXIT_OUTCOME_UNKNOWN;
      }
      if (output.json && view.state === 'SUBMITTING') {
        output.terminal.line(JSON.stringify({ ...view, next: submittingNext(view.idempotencyKey) }));
      } else print(view, output);
      return submitExitCode(view);
    }
    case 'cancel':
    case 'get': {
      const requestId = rest[0];
      if (requestId === undefined && key === undefined)
        throw usage('withdrawals', `gw withdrawals ${action} needs <requestId> or --key`);
      const ref = requestId !== undefined ? { requestId } : { idempotencyKey: key ?? '' };
      const withdrawals = (await client()).withdrawals;
      const group = values['group'];
      const cancelRef = typeof group === 'string' ? { ...ref, accountGroupUuid: group } : ref;
      print(action === 'cancel' ? await withdrawals.cancel(cancelRef) : await withdrawals.get(ref), output);
      return 0;
    }
    default:
      throw usage('withdrawals', `unknown action "${action.slice(0, 40)}" (list, submit, cancel, get)`);
  }
}

/**
 * A submit's answer as its exit code: 3 while its outcome is not known — UNKNOWN, or SUBMITTING (its send mark could
 * not be written: not sent yet, and whether it will be is not known here); 1 when the request was never created — an
 * UNKNOWN one the venue's lists never showed (NOT_FOUND, e.g. its intent stored, then a crash before the send),
 * like a refusal; 0 for a request the venue has, whatever its state.
 */
export function submitExitCode(view: Pick<WithdrawalView, 'state'>): number {
  if (view.state === 'UNKNOWN' || view.state === 'SUBMITTING') return EXIT_OUTCOME_UNKNOWN;
  return view.state === 'NOT_FOUND' || view.state === 'REJECTED' ? 1 : 0;
}

/** The way on for a submit answered SUBMITTING (the JSON `next`, the last human line). */
function submittingNext(idempotencyKey: string): string {
  return `not done: re-run this command with --key ${idempotencyKey} (the same key sends it at most once), or look it up: gw withdrawals get --key ${idempotencyKey}`;
}

function print(view: WithdrawalView, output: Output): void {
  if (output.json) output.terminal.line(JSON.stringify(view));
  else for (const line of withdrawalLines(view, output.terminal)) output.terminal.line(line);
}

export function withdrawalLines(stored: WithdrawalView, colours: Pick<Terminal, 'colour'>): string[] {
  const view = printable(stored); // the venue's messages and names: never a control character to the terminal
  const colour =
    view.state === 'PROCESSED'
      ? 'green'
      : ['FAILED', 'REJECTED', 'CANCELLED', 'NOT_FOUND'].includes(view.state)
        ? 'red'
        : 'yellow';
  const lines = [
    `withdrawal ${view.requestId} (key ${view.idempotencyKey}): ${paint(colours, colour, view.state)} — ${view.kind} ${view.amount} ${view.ccy} from group ${view.accountGroupUuid}${view.venueUuid !== undefined ? `, venue ${view.venueUuid}` : ''}`,
  ];
  if (view.rejection !== undefined) lines.push(`  ${view.rejection.code}: ${view.rejection.message}`);
  const found = view.carriedOutAfterRejection;
  if (found !== undefined) {
    lines.push(
      `  ${paint(colours, 'red', 'carried out at the venue after the gateway answered REJECTED')}: venue ${found.venueUuid}` +
        `${found.venueState !== undefined ? ` (${found.venueState} when found)` : ''}; money may move — ` +
        'check it was not submitted again under another key (docs/runbook.md#gatewaywithdrawalcarriedoutafterrejection)',
    );
  }
  if (view.duplicates !== undefined && view.duplicates.length > 0) {
    lines.push(
      `  ${paint(colours, 'red', 'carried out twice at the venue')}: also venue ${view.duplicates.join(', ')} ` +
        '(cancel it there while it can be; docs/runbook.md#gatewaywithdrawalduplicated)',
    );
  }
  if (view.state === 'UNKNOWN') {
    lines.push(
      "  outcome not known yet: the gateway settles it from the venue's lists and never submits it twice; `gw withdrawals get " +
        view.requestId +
        '`',
    );
  }
  if (view.state === 'SUBMITTING') {
    lines.push(
      '  not sent yet: the gateway could not record that it was sending it (NATS failing); it sends it once it can — never twice',
      `  next: ${submittingNext(view.idempotencyKey)}`,
    );
  }
  if (view.state === 'NOT_FOUND') {
    lines.push(
      "  never created: the venue's lists do not show it (the gateway never sends it again, and watches the lists for it a while longer)",
      `  next: check the venue's own records before submitting it again under a new key; \`gw withdrawals get ${view.requestId}\``,
    );
  }
  if (view.cancelRequested === true && view.state !== 'CANCELLED')
    lines.push("  cancel requested; the venue's list confirms it");
  return lines;
}

export function withdrawalListTable(items: WithdrawalListItem[], truncated: boolean): string[] {
  if (items.length === 0) return ['no withdrawals'];
  const lines = table([
    ['CREATED', 'KIND', 'VENUE UUID', 'REQUEST', 'AMOUNT', 'STATE', 'TO'],
    ...printable(items).map((w) => [
      w.dateCreated ?? '',
      w.kind,
      w.venueUuid,
      w.requestId ?? '',
      `${w.amount ?? ''} ${w.ccy ?? ''}`.trim(),
      w.state ?? '',
      w.bankAccount?.alias ?? w.bankAccount?.name ?? w.wallet?.alias ?? w.wallet?.address ?? w.coinAddress ?? '',
    ]),
  ]);
  if (truncated) lines.push('(more withdrawals than the list limit: --limit)');
  return lines;
}
