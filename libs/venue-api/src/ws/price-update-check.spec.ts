import { describe, expect, it } from '@jest/globals';
import { DECIMAL_PATTERN, isDecimalText } from '../money/decimal.js';
import { Decimal } from '../money/decimal.js';
import { comparePlain, isDecimalChars } from './price-update-check.js';

describe('isDecimalChars (the hot-path scan of the decimal grammar)', () => {
  const cases = [
    '0',
    '1',
    '-1',
    '65000.50',
    '1.00000000',
    '2.451E-5',
    '1.5e-7',
    '6.5e4',
    '1e+10',
    '-0.0',
    '00012',
    '64000.12345678901234567890',
    '',
    '-',
    '+1',
    '.5',
    '5.',
    '1e',
    '1e+',
    '1e-',
    'e5',
    '1.e5',
    '1..2',
    '1.2.3',
    '1e5.5',
    '1E5e5',
    ' 1',
    '1 ',
    '1\n',
    '1,5',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '٣',
    '１',
    '--1',
    '-.5',
    '1-',
    '1e--5',
    '1.5\u0000',
    '9'.repeat(200),
    '9'.repeat(201),
  ];

  it.each(cases)('agrees with DECIMAL_PATTERN and the length limit on %j', (text) => {
    expect(isDecimalChars(text)).toBe(isDecimalText(text));
  });

  it('agrees with DECIMAL_PATTERN on random strings of the grammar alphabet', () => {
    const alphabet = '0123456789.-+eE x';
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    let accepted = 0;
    for (let k = 0; k < 20_000; k++) {
      let text = '';
      const length = 1 + random(8);
      for (let i = 0; i < length; i++) text += alphabet[random(alphabet.length)] ?? '';
      const expected = DECIMAL_PATTERN.test(text);
      if (expected) accepted++;
      expect([text, isDecimalChars(text)]).toEqual([text, expected]);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('rejects anything that is not a string', () => {
    for (const value of [undefined, null, 1, 1.5, {}, [], ['1'], true]) expect(isDecimalChars(value)).toBe(false);
  });
});

describe('comparePlain (offer ≥ bid on plain decimals, without parsing)', () => {
  it('orders plain non-negative decimals exactly as Decimal does', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const digits = (n: number): string =>
      Array.from({ length: n }, () => String(random(3) === 0 ? 0 : random(10))).join('');
    const plain = (): string => {
      const integer = digits(1 + random(4));
      return random(3) === 0 ? integer : `${integer}.${digits(1 + random(5))}`;
    };
    for (let k = 0; k < 20_000; k++) {
      const a = plain();
      const b = random(5) === 0 ? `0${a}0` : plain();
      const expected = new Decimal(a).comparedTo(b);
      expect([a, b, Math.sign(comparePlain(a, b))]).toEqual([a, b, expected]);
    }
  });

  it.each([
    ['42', '42.0', 0],
    ['0', '0.000', 0],
    ['000', '0', 0],
    ['1', '0.999', 1],
    ['0.1', '0.09', 1],
    ['9', '10', -1],
    ['64000.12345678901234567890', '64000.1234567890123456789', 0],
  ])('%s vs %s → %d', (a, b, sign) => {
    expect(Math.sign(comparePlain(a, b))).toBe(sign);
  });
});
