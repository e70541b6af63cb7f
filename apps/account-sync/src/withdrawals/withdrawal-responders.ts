/** The withdrawal subjects (request/reply), answered by the desk; bad requests get INVALID_REQUEST (counted by the bus). */
import {
  WithdrawalCancelRequest,
  WithdrawalGetRequest,
  WithdrawalListRequest,
  WithdrawalSubmitRequest,
  type WithdrawalSubjects,
} from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { WithdrawalDesk } from './withdrawal-desk.js';

export function answerWithdrawals(
  responder: BusResponder,
  subjects: WithdrawalSubjects,
  desk: WithdrawalDesk,
): BusSubscription[] {
  const queue = 'account-sync';
  return [
    responder.respond({
      subject: subjects.submit,
      kind: 'acct.withdrawal.submit',
      contract: WithdrawalSubmitRequest,
      queue,
      handle: (request) => desk.submit(request),
    }),
    responder.respond({
      subject: subjects.cancel,
      kind: 'acct.withdrawal.cancel',
      contract: WithdrawalCancelRequest,
      queue,
      handle: (request) => desk.cancel(request),
    }),
    responder.respond({
      subject: subjects.get,
      kind: 'acct.withdrawal.get',
      contract: WithdrawalGetRequest,
      queue,
      handle: (request) => desk.get(request),
    }),
    responder.respond({
      subject: subjects.list,
      kind: 'acct.withdrawal.list',
      contract: WithdrawalListRequest,
      queue,
      handle: (request) => desk.list(request),
    }),
  ];
}
