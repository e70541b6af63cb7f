import { describe, expect, it } from '@jest/globals';
import type { AccountBalances } from '#venue-api';
import { balanceStates, limitsByKey, pairsByKey } from './venue-reads.js';

const detail = (value: string) => ({ value });

describe('venue reads', () => {
  it('balances come from Account_Groups only, one state per group and currency', () => {
    const answer = {
      data: {
        Account_Groups: [
          {
            AccountGroup_Uuid: 'g-1',
            AccountGroup_Name: 'Default',
            Natural: true,
            Accounts: {
              USD: {
                Balance: detail('10.00'),
                Available_Balance: detail('8.00'),
                Brokerage_Available_Balance: detail('9.00'),
                Unsettled_Buy_Balance: detail('1.00'),
                ccy: 'USD',
              },
            },
          },
        ],
      },
    } as AccountBalances;
    const { groups, states } = balanceStates(answer);
    expect(groups).toEqual([{ uuid: 'g-1', name: 'Default', natural: true }]);
    expect([...states]).toEqual([
      [
        'g-1.USD',
        {
          accountGroupUuid: 'g-1',
          accountGroupName: 'Default',
          natural: true,
          ccy: 'USD',
          balance: '10.00',
          available: '8.00',
          brokerageAvailable: '9.00',
          unsettledBuy: '1.00',
        },
      ],
    ]);
  });

  it('limits and pairs without the guessed fields are kept under a positional key, never dropped', () => {
    expect([...limitsByKey([{ accountGroupUuid: 'g', ccy: 'USD' }, { fields: { x: '1' } }]).keys()]).toEqual([
      'g.USD',
      'record.1',
    ]);
    expect([...pairsByKey([{ base: 'BTC', quote: 'USD' }, { fields: { odd: true } }]).keys()]).toEqual([
      'BTC.USD',
      'pair.1',
    ]);
  });
});
