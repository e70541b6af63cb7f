import { IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { Optional, VISIBLE_TEXT } from './validate.js';
import { IsPositiveDecimalString, SIZE_DECIMAL, SIZE_RULE } from './decimal-string.js';
import type { ErrorReply } from './reply.js';
import { SUBJECT_TOKEN } from './subjects.js';

const REQUESTER_RULE = 'requester must be 1–128 characters without control or format characters, not only spaces';

/** Longest price subject a release may name (a NATS subject of ours is far shorter). */
const MAX_SUBJECT_LENGTH = 255;

/**
 * A strategy's request for a price stream, on `{prefix}.{account}.stream.subscribe` (request/reply).
 * Identical requests share one venue subscription. Interest is a lease: re-send the same request
 * before `leaseSeconds` run out to keep it; a crashed strategy's interest expires by itself.
 */
export class StreamRequest {
  /** `BASE.QUOTE`, 3–33 characters as in an order request (an unbounded one would reach the venue's socket). */
  @IsString()
  @MinLength(3)
  @MaxLength(33)
  @Matches(/^[A-Za-z0-9]+\.[A-Za-z0-9]+$/, { message: 'instrument must be BASE.QUOTE' })
  instrument!: string;

  /** Size in `currency`, at most 8 decimals. */
  @IsPositiveDecimalString()
  @Matches(SIZE_DECIMAL, { message: SIZE_RULE })
  quantity!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(16)
  currency!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(16)
  @Matches(SUBJECT_TOKEN, { message: 'tenor must be one subject token' })
  tenor!: string;

  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @Matches(SUBJECT_TOKEN, { message: 'accountGroup must be one subject token' })
  accountGroup!: string;

  /** Who holds the interest (a strategy instance id); leases are per requester. */
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  @Matches(VISIBLE_TEXT, { message: REQUESTER_RULE })
  requester!: string;

  @Optional()
  @IsInt()
  @Min(5)
  @Max(3600)
  leaseSeconds?: number;
}

export interface StreamGranted {
  ok: true;
  /** The subject the prices arrive on. */
  subject: string;
  /** When the requester's lease ends unless renewed (epoch ms). */
  leaseExpiresAt: number;
}

export type StreamReply = StreamGranted | ErrorReply;

/** `{prefix}.{account}.stream.release` */
export class StreamRelease {
  @IsString() @MinLength(1) @MaxLength(MAX_SUBJECT_LENGTH) subject!: string;
  @IsString() @MinLength(1) @MaxLength(128) @Matches(VISIBLE_TEXT, { message: REQUESTER_RULE }) requester!: string;
}

export type StreamReleaseReply = { ok: true } | ErrorReply;

export const DEFAULT_LEASE_SECONDS = 30;
