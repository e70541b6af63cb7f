/**
 * class-validator classes for the service → client frames other than `pricestream` (§2.1, W5–W12).
 * Fields are `declare`d: a DTO instance holds only what the frame carried, so a missing field stays
 * missing and fails validation. Unknown properties never reach these classes (see inbound.ts).
 *
 * The subscribe acknowledgement is shown by the spec (§2.1) and checked strictly. Every other frame's
 * fields are "not shown" (§4.2): all their fields are optional here, a present field of the wrong type is
 * dropped as an oddity, and what a frame needs to be correlated is required by inbound.ts (`required`).
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
import { WholeCharacters } from '#contracts';
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

/**
 * An identifier used to correlate: a non-empty string of whole characters (a lone UTF-16 surrogate could never
 * match one of ours, nor be sent back as UTF-8: spec-gaps K8).
 */
function IsCorrelatingId(): PropertyDecorator {
  const nonEmpty = ValidateBy({
    name: 'isNonEmptyString',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && value.length > 0,
      defaultMessage: (args?: ValidationArguments) => `${args?.property ?? 'value'} must be a non-empty string`,
    },
  });
  const whole = WholeCharacters();
  return (target, property) => {
    nonEmpty(target, property);
    whole(target, property);
  };
}

abstract class ServiceFrameDto {
  @IsString() declare chanId: string;
  @IsInt() declare timestamp: number;
}

abstract class GuessedFrameDto {
  @IsOptional() @IsString() declare chanId?: string;
  @IsOptional() @IsInt() declare timestamp?: number;
}

export class SubscribeAckDto extends ServiceFrameDto implements SubscribeAck {
  declare messageType: 'subscribe';
  @IsBoolean() declare success: boolean;
  @IsString() declare message: string;
  @IsString() @WholeCharacters() declare subscriptionId: string;
  @IsString() declare instrument: string;
  @IsEchoedQuantity() declare quantity: string;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare tenor?: string;
  @IsOptional() @IsString() declare settleDate?: string;
  @IsOptional() @IsString() @WholeCharacters() declare tag?: string;
  @IsOptional() @IsString() declare networkId?: string | null;
}

export class UnsubscribeReplyDto extends GuessedFrameDto implements UnsubscribeReply {
  declare messageType: 'unsubscribe';
  @IsOptional() @IsString() @WholeCharacters() declare subscriptionId?: string;
  @IsOptional() @IsString() @WholeCharacters() declare tag?: string;
  @IsOptional() @IsBoolean() declare success?: boolean;
  @IsOptional() @IsString() declare message?: string;
}

export class StreamStopDto extends GuessedFrameDto implements StreamStop {
  declare messageType: 'streamStop';
  @IsOptional() @IsString() declare instrument?: string;
  @IsOptional() @IsString() declare tenor?: string;
  @IsOptional() @IsString() @WholeCharacters() declare tag?: string;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
}

export class OrderReplyDto extends GuessedFrameDto implements OrderReply {
  declare messageType: 'order';
  @IsOptional() @IsCorrelatingId() declare clientRequestId?: string;
  @IsOptional() @IsCorrelatingId() declare transactionId?: string;
  @IsOptional() @IsCorrelatingId() declare quoteId?: string;
  @IsOptional() @IsIn(SIDES) declare side?: Side;
  @IsIn(ORDER_STATUSES) declare orderStatus: OrderStatus;
  @IsOptional() @IsIn(SUBSCRIPTION_STATUSES) declare subscriptionStatus?: OrderSubscriptionStatus;
  @IsOptional() @IsString() declare sessionId?: string | null;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
  @IsOptional() @IsString() declare instrument?: string;
  @IsOptional() @IsVenueDecimal() declare price?: string;
  @IsOptional() @IsVenueDecimal() declare quantity?: string;
  @IsOptional() @IsVenueDecimal() declare quoteAmount?: string;
  @IsOptional() @IsString() declare currency?: string;
  @IsOptional() @IsString() declare settleDate?: string;
  @IsOptional() @IsString() declare tradeRef?: string;
}

export class OrderUnsubscribeReplyDto extends GuessedFrameDto implements OrderUnsubscribeReply {
  declare messageType: 'orderUnsubscribe';
  @IsCorrelatingId() declare clientRequestId: string;
  @IsOptional() @IsBoolean() declare success?: boolean;
  @IsOptional() @IsIn(SUBSCRIPTION_STATUSES) declare subscriptionStatus?: OrderSubscriptionStatus;
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
}

export class ErrorFrameDto extends GuessedFrameDto implements ErrorFrame {
  declare messageType: 'error';
  @IsOptional() @IsString() declare code?: string;
  @IsOptional() @IsString() declare message?: string;
}

/** W12: an entry needs only its uuid (the reply's fields are not shown, §2.3); the rest is kept when well typed. */
export class AccountGroupEntryDto implements AccountGroupEntry {
  @IsString() @WholeCharacters() declare uuid: string;
  @IsOptional() @IsString() declare name?: string;
  @IsOptional() @IsBoolean() declare natural?: boolean;
  @IsOptional() @IsString() declare ownerShortcode?: string;
}

export class AccountGroupsReplyDto extends GuessedFrameDto implements AccountGroupsReply {
  declare messageType: 'accountGroups';
  @IsOptional() @IsString() declare requestId?: string;
  @IsOptional() @IsBoolean() declare success?: boolean;
  @IsArray() @ValidateNested({ each: true }) declare accountGroups: AccountGroupEntryDto[];
}
