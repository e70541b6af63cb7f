/** `{prefix}.{account}.acct.transaction.get`: a transaction's current state, read from the ledger's stream. */
import {
  errorReply,
  TransactionErrorCode,
  TransactionGetRequest,
  type TransactionGetReply,
  type TransactionSubjects,
} from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { TransactionLedger } from './transaction-ledger.js';

export function answerTransactionQueries(
  responder: BusResponder,
  subjects: TransactionSubjects,
  ledger: TransactionLedger,
): BusSubscription {
  return responder.respond({
    subject: subjects.get,
    kind: 'acct.transaction.get',
    contract: TransactionGetRequest,
    queue: 'account-sync',
    handle: async (request): Promise<TransactionGetReply> => {
      const current = await ledger.current(request.uuid);
      return current === undefined
        ? errorReply(TransactionErrorCode.NotFound, 'no such transaction')
        : { ok: true, transaction: current };
    },
  });
}
