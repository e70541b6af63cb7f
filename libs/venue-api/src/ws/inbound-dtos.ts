/**
 * class-validator classes for the service → client frames other than `pricestream` (§2.1, W5–W12).
 * Fields are `declare`d: a DTO instance holds only what the frame carried, so a missing field stays
 * missing and fails validation. Unknown properties never reach these classes (see inbound.ts).
 */
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  ValidateBy,
  ValidateNested,
  type ValidationArguments,
  type ValidationOptions,
} from 'class-validator';
import { isParsableDecimal } from '../money/decimal.js';
import type {
  AccountGroupEntry,
  AccountGroupsReply,
  ErrorFrame,
  OrderReply,
  OrderStatus,
  OrderSubscriptionStatus,
  OrderUnsubscribeReply,
  Side,
  StreamStop,
  SubscribeAck,
  UnsubscribeReply,
} from './messages.js';

const SIDES: readonly Side[] = ['BUY', 'SELL'];
const ORDER_STATUSES: readonly OrderStatus[] = ['PENDING', 'SUCCESS', 'FAILED', 'INDETERMINATE'];
const SUBSCRIPTION_STATUSES: readonly OrderSubscriptionStatus[] = ['NOT_SUBSCRIBED', 'SUBSCRIBED', 'UNSUBSCRIBED'];

/** A decimal string as parseDecimal accepts it (scientific notation allowed). */
export function IsVenueDecimal(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isVenueDecimal',
      validator: {
        validate: (value: unknown) => isParsableDecimal(value),
        defaultMessage: (args?: ValidationArguments) => `${args?.property ?? 'value'} must be a decimal string`,
      },
    },
    options,
  );
}

/** §2.1: the echoed quantity is a decimal on success; on failure the raw submitted string, unparsed. */
function IsEchoedQuantity(): PropertyDecorator {
  return ValidateBy({
    name: 'isEchoedQuantity',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        typeof value === 'string' &&
        ((args?.object as { success?: unknown } | undefined)?.success !== true || isParsableDecimal(value)),
      defaultMessage: () => 'quantity must be a decimal string on a successful subscribe',
    },
  });
}

abstract class ServiceFrameDto {
  @IsString() declare chanId: string;
  @IsInt() declare timestamp: number;
}

export class SubscribeAckDto extends ServiceFrameDto implements SubscribeAck {
  declare messageType: 'subscribe';
  @IsBoolean() declare success: boolean;
  @IsString() declare message: string;
  @IsString() declare subscriptionId: string;
  @IsString() declare instrument: string;
  @IsEchoedQuantity() declare quantity: string;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare tenor?: string;
  @IsOptional() @IsString() declare settleDate?: string;
  @IsOptional() @IsString() declare tag?: string;
  @IsOptional() @IsString() declare networkId?: string | null;
}

export class UnsubscribeReplyDto extends ServiceFrameDto implements UnsubscribeReply {
  declare messageType: 'unsubscribe';
  @IsString() declare subscriptionId: string;
  @IsOptional() @IsString() declare tag?: string;
  @IsBoolean() declare success: boolean;
  @IsOptional() @IsString() declare message?: string;
}

export class StreamStopDto extends ServiceFrameDto implements StreamStop {
  declare messageType: 'streamStop';
  @IsOptional() @IsString() declare instrument?: string;
  @IsOptional() @IsString() declare tenor?: string;
  @IsOptional() @IsString() declare tag?: string;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
}

export class OrderReplyDto extends ServiceFrameDto implements OrderReply {
  declare messageType: 'order';
  @IsString() declare clientRequestId: string;
  @IsString() declare transactionId: string;
  @IsOptional() @IsString() declare quoteId?: string;
  @IsOptional() @IsIn(SIDES) declare side?: Side;
  @IsIn(ORDER_STATUSES) declare orderStatus: OrderStatus;
  @IsIn(SUBSCRIPTION_STATUSES) declare subscriptionStatus: OrderSubscriptionStatus;
  @IsOptional() @IsString() declare sessionId?: string | null;
  @IsString() declare code: string;
  @IsString() declare message: string;
  @IsOptional() @IsString() declare instrument?: string;
  @IsOptional() @IsVenueDecimal() declare price?: string;
  @IsOptional() @IsVenueDecimal() declare quantity?: string;
  @IsOptional() @IsVenueDecimal() declare quoteAmount?: string;
  @IsOptional() @IsString() declare currency?: string;
  @IsOptional() @IsString() declare settleDate?: string;
  @IsOptional() @IsString() declare tradeRef?: string;
}

export class OrderUnsubscribeReplyDto extends ServiceFrameDto implements OrderUnsubscribeReply {
  declare messageType: 'orderUnsubscribe';
  @IsString() declare clientRequestId: string;
  @IsBoolean() declare success: boolean;
  @IsOptional() @IsIn(SUBSCRIPTION_STATUSES) declare subscriptionStatus?: OrderSubscriptionStatus;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
}

export class ErrorFrameDto extends ServiceFrameDto implements ErrorFrame {
  declare messageType: 'error';
  @IsString() declare code: string;
  @IsString() declare message: string;
}

export class AccountGroupEntryDto implements AccountGroupEntry {
  @IsString() declare uuid: string;
  @IsString() declare name: string;
  @IsBoolean() declare natural: boolean;
  @IsOptional() @IsString() declare ownerShortcode?: string;
}

export class AccountGroupsReplyDto extends ServiceFrameDto implements AccountGroupsReply {
  declare messageType: 'accountGroups';
  @IsOptional() @IsString() declare requestId?: string;
  @IsBoolean() declare success: boolean;
  @IsArray() @ValidateNested({ each: true }) declare accountGroups: AccountGroupEntryDto[];
}
