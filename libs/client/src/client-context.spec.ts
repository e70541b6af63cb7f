import { describe, expect, it } from '@jest/globals';
import { replyErrorMessage } from './client-context.js';

describe('an error reply as a message', () => {
  it('carries the reason of each bad field, not only its name', () => {
    expect(
      replyErrorMessage({
        code: 'INVALID_REQUEST',
        message: 'invalid fields: currency',
        fields: [{ field: 'currency', problem: 'currency must be one of the instrument’s two currencies' }],
      }),
    ).toBe('invalid fields: currency — currency must be one of the instrument’s two currencies');
    expect(replyErrorMessage({ code: 'NOT_FOUND', message: 'no such order' })).toBe('no such order');
    expect(replyErrorMessage({ code: 'X', message: 'm', fields: 'junk' })).toBe('m');
  });
});
