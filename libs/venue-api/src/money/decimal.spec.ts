import { describe, it, expect } from '@jest/globals';
import { Decimal as DecimalJs } from 'decimal.js';
import {
  Decimal,
  InvalidDecimalError,
  Rounding,
  assertMaxScale,
  parseDecimal,
  scaleOf,
  toFixedScale,
  toPlain,
} from './decimal.js';

describe('parseDecimal', () => {
  it.each([
    ['0', '0'],
    ['1', '1'],
    ['-1.25', '-1.25'],
    ['100.500', '100.5'],
    ['0.00000001', '0.00000001'],
    ['1.5e-7', '0.00000015'],
    ['2.451E-5', '0.00002451'],
    ['1E+3', '1000'],
    ['12e2', '1200'],
    ['007.5', '7.5'],
    [
      '123456789012345678901234567890.123456789012345678901234567890',
      '123456789012345678901234567890.12345678901234567890123456789',
    ],
  ])('accepts %s', (text, plain) => {
    expect(toPlain(parseDecimal(text))).toBe(plain);
  });

  it('keeps every digit of a long value (parsing never rounds)', () => {
    const text = '0.1000000000000000055511151231257827021181583404541015625';
    expect(toPlain(parseDecimal(text))).toBe(text);
  });

  it.each([
    ['', 'empty string'],
    [' 1', 'not a decimal'],
    ['1 ', 'not a decimal'],
    ['1\n', 'not a decimal'],
    ['NaN', 'not a decimal'],
    ['Infinity', 'not a decimal'],
    ['-Infinity', 'not a decimal'],
    ['0x1F', 'not a decimal'],
    ['0b101', 'not a decimal'],
    ['1,5', 'not a decimal'],
    ['1,000.00', 'not a decimal'],
    ['+1', 'not a decimal'],
    ['.5', 'not a decimal'],
    ['5.', 'not a decimal'],
    ['1e', 'not a decimal'],
    ['e5', 'not a decimal'],
    ['1.2.3', 'not a decimal'],
    ['--1', 'not a decimal'],
    ['1e-5000', 'exponent out of range'],
    ['1'.repeat(201), 'longer than'],
  ])('rejects %j', (text, reason) => {
    expect(() => parseDecimal(text)).toThrow(InvalidDecimalError);
    expect(() => parseDecimal(text)).toThrow(reason);
  });

  it('rejects a non-string at runtime', () => {
    expect(() => parseDecimal(1.5 as unknown as string)).toThrow('expected a string, got number');
  });

  it('names the field in the message', () => {
    try {
      parseDecimal('abc', 'offer.price');
      throw new Error('did not throw');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidDecimalError);
      const e = error as InvalidDecimalError;
      expect(e.field).toBe('offer.price');
      expect(e.message).toBe('Invalid decimal in offer.price: not a decimal number: "abc"');
    }
  });

  it('does not echo an endless input in the message', () => {
    expect(() => parseDecimal('x'.repeat(100))).toThrow(/"x{40}…"/);
  });

  it('returns the configured clone (50 significant digits, no exponent in toString)', () => {
    const d = parseDecimal('1e-40');
    expect(d).toBeInstanceOf(Decimal);
    expect(d.toString()).toBe(`0.${'0'.repeat(39)}1`);
    expect(new Decimal(1).div(3).toString()).toBe(`0.${'3'.repeat(50)}`);
  });

  it('does not change the settings of the shared decimal.js constructor', () => {
    expect(DecimalJs.precision).toBe(20);
    expect(new DecimalJs('1e-40').toString()).toBe('1e-40');
  });
});

describe('toPlain', () => {
  it('never writes scientific notation', () => {
    expect(toPlain(new Decimal('1e-30'))).toBe(`0.${'0'.repeat(29)}1`);
    expect(toPlain(new Decimal('1e60'))).toBe(`1${'0'.repeat(60)}`);
  });
  it('writes negative zero as 0', () => {
    expect(toPlain(new Decimal('-0'))).toBe('0');
  });
  it('rejects non-finite values', () => {
    expect(() => toPlain(new Decimal(NaN))).toThrow(InvalidDecimalError);
    expect(() => toPlain(new Decimal(Infinity))).toThrow(InvalidDecimalError);
  });
});

describe('toFixedScale', () => {
  it('pads to the scale', () => {
    expect(toFixedScale(new Decimal('100.5'), 2, Rounding.Down)).toBe('100.50');
    expect(toFixedScale(new Decimal('7'), 8, Rounding.HalfEven)).toBe('7.00000000');
  });
  it('rounds with the given mode', () => {
    expect(toFixedScale(new Decimal('1.005'), 2, Rounding.HalfUp)).toBe('1.01');
    expect(toFixedScale(new Decimal('1.005'), 2, Rounding.HalfEven)).toBe('1.00');
    expect(toFixedScale(new Decimal('1.015'), 2, Rounding.HalfEven)).toBe('1.02');
    expect(toFixedScale(new Decimal('1.019'), 2, Rounding.Down)).toBe('1.01');
    expect(toFixedScale(new Decimal('-1.011'), 2, Rounding.Up)).toBe('-1.02');
    expect(toFixedScale(new Decimal('-1.011'), 2, Rounding.Ceil)).toBe('-1.01');
    expect(toFixedScale(new Decimal('-1.011'), 2, Rounding.Floor)).toBe('-1.02');
    expect(toFixedScale(new Decimal('2.5e-9'), 8, Rounding.HalfEven)).toBe('0.00000000');
    expect(toFixedScale(new Decimal('1.5e-8'), 8, Rounding.HalfEven)).toBe('0.00000002');
  });
  it('writes 0 decimals without a dot and never -0', () => {
    expect(toFixedScale(new Decimal('12.7'), 0, Rounding.Down)).toBe('12');
    expect(toFixedScale(new Decimal('-0.001'), 2, Rounding.HalfEven)).toBe('0.00');
  });
  it('rejects a bad scale', () => {
    expect(() => toFixedScale(new Decimal(1), -1, Rounding.Down)).toThrow(RangeError);
    expect(() => toFixedScale(new Decimal(1), 1.5, Rounding.Down)).toThrow(RangeError);
  });
});

describe('scaleOf', () => {
  it.each([
    ['12', 0],
    ['100.500', 3],
    ['100.50', 2],
    ['0.00000001', 8],
    ['1.5e-7', 8],
    ['2.451E-5', 8],
    ['1.5e3', 0],
    ['1.2345e2', 2],
    ['1.2345E+2', 2],
    ['-0.10', 2],
  ])('%s has %i decimals as written', (text, scale) => {
    expect(scaleOf(text)).toBe(scale);
  });
  it('rejects non-decimals', () => {
    expect(() => scaleOf('1,5', 'amount')).toThrow('Invalid decimal in amount');
  });
});

describe('assertMaxScale', () => {
  it('accepts up to the maximum', () => {
    expect(() => assertMaxScale('100.50', 2)).not.toThrow();
    expect(() => assertMaxScale('100', 2)).not.toThrow();
  });
  it('counts trailing zeros (§4.9: "100.500" has 3 decimals)', () => {
    expect(() => assertMaxScale('100.500', 2, 'amount')).toThrow(
      'Invalid decimal in amount: "100.500" has 3 decimals, at most 2 allowed',
    );
  });
  it('judges scientific notation by its value scale', () => {
    expect(() => assertMaxScale('1.5e-7', 8)).not.toThrow();
    expect(() => assertMaxScale('1.5e-8', 8)).toThrow(InvalidDecimalError);
  });
});
