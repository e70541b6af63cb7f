/**
 * The withdrawal subjects (request/reply), answered by the desk; bad requests get INVALID_REQUEST, counted by the bus
 * (`bus_bad_requests_total`) whether the contract or the desk refused them (an amount's scale, an account group the
 * account does not have: tester t2 F2).
 */
import {
  WithdrawalCancelRequest,
  WithdrawalGetRequest,
  WithdrawalListRequest,
  WithdrawalErrorCode,
  WithdrawalSubmitRequest,
  type WithdrawalReply,
  type WithdrawalSubjects,
} from '#contracts';
import type { BusResponder, BusSubscription } from '#bus';
import type { WithdrawalDesk } from './withdrawal-desk.js';

/** The desk's own refusal of a request as invalid (not a rejection carried by a stored request, e.g. the venue's). */
function refusedAsInvalid(reply: WithdrawalReply): boolean {
  return !reply.ok && reply.error.code === WithdrawalErrorCode.InvalidRequest && reply.withdrawal === undefined;
}

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
      isBadRequest: refusedAsInvalid,
    }),
    responder.respond({
      subject: subjects.cancel,
      kind: 'acct.withdrawal.cancel',
      contract: WithdrawalCancelRequest,
      queue,
      handle: (request) => desk.cancel(request),
      isBadRequest: refusedAsInvalid,
    }),
    responder.respond({
      subject: subjects.get,
      kind: 'acct.withdrawal.get',
      contract: WithdrawalGetRequest,
      queue,
      handle: (request) => desk.get(request),
      isBadRequest: refusedAsInvalid,
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
