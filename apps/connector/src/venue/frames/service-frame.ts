import type { DecodeResult, RawFrame, ServiceMessage } from '#venue-api';

/** Turns a raw frame into a message, `unknown` or `invalid`; never throws (`decodeServiceFrame`). */
export type FrameDecoder = (raw: RawFrame) => DecodeResult;

/** Synchronous listener: called on the socket's own tick, so the hot path adds no scheduling. */
export type FrameListener = (message: ServiceMessage, arrivedAt: number) => void;
