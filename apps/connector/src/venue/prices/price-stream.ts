export type AcquireResult = { ok: true; leaseExpiresAt: number } | { ok: false; code: string; message: string };

export interface StreamWaiter {
  requester: string;
  leaseExpiresAt: number;
  settle: (result: AcquireResult) => void;
}

export interface StreamKeyFields {
  accountGroup: string;
  instrument: string;
  tenor: string;
  currency: string;
  quantity: string;
}
