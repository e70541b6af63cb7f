/**
 * How a gateway process ends, for whoever supervises it (the `npm start` launcher, systemd, Kubernetes): 0 after a
 * clean stop; these for the two endings a supervisor must tell apart. One place, so apps and launcher agree.
 */
export const EXIT_CODE = {
  /** EX_CONFIG: a setting was refused at start-up, named on stderr; nothing was started. Do not restart. */
  config: 78,
  /** account-sync lost its writer lease and must stop writing at once: start it again (it takes the lease back or waits). */
  leaseLost: 75,
  /** EX_TEMPFAIL: NATS became unreachable during start-up, or a port to listen on is in use (the same 75): start it again. */
  unavailable: 75,
} as const;
