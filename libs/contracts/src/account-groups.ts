import type { ErrorReply } from './reply.js';

/** Reply on `{prefix}.{account}.account-groups.get` (request body ignored). */
export interface AccountGroupsGranted {
  ok: true;
  accountGroups: { uuid: string; name: string; natural: boolean }[];
}
export type AccountGroupsReply = AccountGroupsGranted | ErrorReply;
