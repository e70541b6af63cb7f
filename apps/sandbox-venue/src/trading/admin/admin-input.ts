import { BadRequestException } from '@nestjs/common';
import { Decimal } from '../../money.js';

/**
 * Admin requests may carry their fields as a JSON body or as query parameters (handy from curl);
 * the body wins. Values are validated here so a bad operator call is a clear 400, never a crash.
 */
export class AdminInput {
  private readonly fields: Record<string, unknown>;

  constructor(body: unknown, query: Record<string, unknown>) {
    const fromBody = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
    this.fields = { ...query, ...(fromBody as Record<string, unknown>) };
  }

  optionalString(name: string): string | undefined {
    const value = this.fields[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw new BadRequestException(`${name} must be a string`);
    return value;
  }

  decimal(name: string): Decimal {
    const value = this.fields[name];
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^[+-]?\d+(\.\d+)?$/.test(text)) {
      throw new BadRequestException(`${name} must be a decimal string`);
    }
    return new Decimal(text);
  }

  /** A non-negative integer; `fallback` when absent. */
  count(name: string, fallback?: number): number {
    const value = this.fields[name];
    if (value === undefined || value === '') {
      if (fallback !== undefined) return fallback;
      throw new BadRequestException(`${name} is required`);
    }
    const text = String(value);
    if (!/^\d+$/.test(text)) throw new BadRequestException(`${name} must be a non-negative integer`);
    return Number(text);
  }

  optionalCount(name: string): number | undefined {
    const value = this.fields[name];
    return value === undefined || value === '' ? undefined : this.count(name);
  }
}
