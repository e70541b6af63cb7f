import { describe, expect, it } from '@jest/globals';
import { parseJsonLossless } from '../../money/lossless-json.js';
import { ShapeError } from './shape.js';
import { webhookSourceAddressesReader } from './webhook-ips.js';

const list = (notice: string): string =>
  `{"service":"svc","version":4,"ipv4_cidrs":["203.0.113.0/24"],"change_notice":${notice}}`;
const read = (json: string) => webhookSourceAddressesReader.read(parseJsonLossless(json), 'body');

describe('ips.json (§4.12): change_notice read liberally (its fields have no types in the spec)', () => {
  it('null or absent: no change planned', () => {
    expect(read(list('null')).change_notice).toBeNull();
    expect(read('{"version":4,"ipv4_cidrs":["203.0.113.0/24"]}').change_notice).toBeNull();
  });

  it('an object of strings is taken as sent, with nothing odd', () => {
    expect(read(list('{"message":"moving","effective_date":"2027-01-01"}')).change_notice).toEqual({
      message: 'moving',
      effective_date: '2027-01-01',
    });
    // an empty notice still announces a change
    expect(read(list('{}')).change_notice).toEqual({});
  });

  it('a numeric effective_date (epoch ms) is kept as its JSON text and told as odd; the list is read', () => {
    const read4 = read(list('{"message":"moving","effective_date":1798761600000}'));
    expect(read4).toMatchObject({ version: 4, ipv4_cidrs: ['203.0.113.0/24'] });
    expect(read4.change_notice).toEqual({
      message: 'moving',
      effective_date: '1798761600000',
      oddities: ['effective_date: a number, kept as its text'],
    });
  });

  it('a message or date of another kind is left out and told; the notice still stands', () => {
    expect(read(list('{"message":{"en":"moving"},"effective_date":["2027"]}')).change_notice).toEqual({
      oddities: ['message: an object, left out', 'effective_date: an array, left out'],
    });
    expect(read(list('{"message":true,"effective_date":1.5e12}')).change_notice).toEqual({
      effective_date: '1.5e12',
      oddities: ['message: a boolean, left out', 'effective_date: a number, kept as its text'],
    });
  });

  it('a notice that is not an object still announces a change: a string is its message, anything else is told', () => {
    expect(read(list('"moving to 198.51.100.0/24 on 2027-01-01"')).change_notice).toEqual({
      message: 'moving to 198.51.100.0/24 on 2027-01-01',
      oddities: ['a string, not an object: taken as the message'],
    });
    expect(read(list('1798761600000')).change_notice).toEqual({ oddities: ['a number, not an object'] });
    expect(read(list('true')).change_notice).toEqual({ oddities: ['a boolean, not an object'] });
    expect(read(list('[1,2]')).change_notice).toEqual({ oddities: ['an array, not an object'] });
  });

  it('over-long texts are cut, never a refusal of the list', () => {
    const notice = read(list(`{"message":"${'m'.repeat(10_000)}","effective_date":"${'d'.repeat(10_000)}"}`));
    expect(notice.change_notice?.message).toHaveLength(4096);
    expect(notice.change_notice?.effective_date).toHaveLength(4096);
    expect(notice.change_notice?.oddities).toEqual([
      'message: cut to 4096 characters',
      'effective_date: cut to 4096 characters',
    ]);
  });

  it('the fields the spec does type stay strict: version and ipv4_cidrs', () => {
    expect(() => read('{"version":"four","ipv4_cidrs":[],"change_notice":null}')).toThrow(ShapeError);
    expect(() => read('{"version":4,"ipv4_cidrs":"10.0.0.0/8","change_notice":null}')).toThrow(ShapeError);
  });
});
