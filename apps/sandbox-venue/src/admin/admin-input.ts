/** Reading operator JSON bodies: a clear 400 naming the field, never a crash. */
import { BadRequestException } from '@nestjs/common';
import { Decimal } from '../money.js';
import { fitsPrecision } from '../reference/currencies.js';

export type AdminBody = Record<string, unknown>;

export function asBody(body: unknown): AdminBody {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as AdminBody) : {};
}

export function requiredString(body: AdminBody, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v === '') throw new BadRequestException(`${name} must be a non-empty string`);
  return v;
}

export function optionalText(body: AdminBody, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequestException(`${name} must be a string`);
  return v;
}

export function integerField(body: AdminBody, name: string, fallback?: number): number {
  const v = body[name] ?? fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new BadRequestException(`${name} must be an integer`);
  return v;
}

export function booleanField(body: AdminBody, name: string, fallback?: boolean): boolean {
  const v = body[name] ?? fallback;
  if (typeof v !== 'boolean') throw new BadRequestException(`${name} must be a boolean`);
  return v;
}

/** Decimal amounts arrive as strings (the operator API never takes money as a JSON number). */
export function decimalString(body: AdminBody, name: string): string {
  const v = requiredString(body, name);
  if (!/^\d+(\.\d+)?$/.test(v)) throw new BadRequestException(`${name} must be a positive decimal string`);
  return v;
}

/** A decimal amount of `ccy` a balance can hold (W38): finer than the currency's precision is a 400, not a crash. */
export function heldAmount(body: AdminBody, name: string, ccy: string): Decimal {
  const amount = new Decimal(decimalString(body, name));
  if (!fitsPrecision(ccy, amount)) throw new BadRequestException(`${name} has more decimals than ${ccy} has`);
  return amount;
}
