/**
 * The NATS variables of every app (NATS_URL, NATS_SUBJECT_PREFIX, ACCOUNT, NATS_REPLICAS), mixed into an
 * app's config class: `class AppConfig extends withNatsEnv(ServiceEnv)`. The subject rules are the
 * contracts' own (`SUBJECT_TOKEN`, `SUBJECT_PREFIX`), so a value accepted here is one `Subjects` accepts.
 */
import { DEFAULT_SUBJECT_PREFIX, SUBJECT_PREFIX, SUBJECT_TOKEN } from '#contracts';
import { EnvInt, EnvText, EnvUrl, type EnvClass } from '#observability';

export function withNatsEnv<Base extends EnvClass>(base: Base) {
  abstract class NatsEnv extends base {
    // ---- NATS
    @EnvUrl({ schemes: ['nats', 'tls', 'ws', 'wss'], list: true }) NATS_URL: string = 'nats://127.0.0.1:4222';
    @EnvText({ max: 128, pattern: SUBJECT_PREFIX, describe: 'dot-separated subject tokens (at most 128 characters)' })
    NATS_SUBJECT_PREFIX: string = DEFAULT_SUBJECT_PREFIX;
    /** Names the venue account the app serves (the same value in every app of one account); one subject token. */
    @EnvText({ max: 64, pattern: SUBJECT_TOKEN, describe: 'one subject token of at most 64 characters' })
    ACCOUNT: string = 'default';
    /** Replicas of the durable streams and buckets: 3 on a three-node JetStream cluster (docs/operations.md). */
    @EnvInt(1, 5) NATS_REPLICAS: number = 1;
  }
  return NatsEnv;
}
