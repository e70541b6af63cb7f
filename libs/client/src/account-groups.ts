/** The venue account groups the connector's key may act for (`account-groups.get`). */
import type { AccountGroupsGranted } from '#contracts';
import { gatewayRequest, type ClientContext } from './client-context.js';

export type AccountGroup = AccountGroupsGranted['accountGroups'][number];

export class AccountGroupsApi {
  constructor(private readonly context: ClientContext) {}

  async list(): Promise<AccountGroup[]> {
    const reply = await gatewayRequest<AccountGroupsGranted>(
      this.context,
      this.context.subjects.accountGroups,
      undefined,
    );
    return reply.accountGroups;
  }

  /** The Natural (default) group, or the first one. */
  async natural(): Promise<AccountGroup | undefined> {
    const groups = await this.list();
    return groups.find((g) => g.natural) ?? groups[0];
  }
}
