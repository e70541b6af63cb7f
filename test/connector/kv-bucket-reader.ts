import type { JetStreamManager } from '@nats-io/jetstream';

/** Reads a KV bucket's stream as a test sees it: the keys with a value, and every message kept (markers too). */
export class KvBucketReader {
  private readonly stream: string;
  private readonly prefix: string;

  constructor(
    private readonly jsm: JetStreamManager,
    bucket: string,
  ) {
    this.stream = `KV_${bucket}`;
    this.prefix = `$KV.${bucket}.`;
  }

  /** Messages the bucket's stream keeps: live values and delete or purge markers. */
  async messages(): Promise<number> {
    return (await this.jsm.streams.info(this.stream)).state.messages;
  }

  /** Keys whose last message is a value (not a marker), sorted. */
  async liveKeys(): Promise<string[]> {
    const info = await this.jsm.streams.info(this.stream, { subjects_filter: `${this.prefix}>` });
    const live: string[] = [];
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const last = await this.jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      const operation = last?.header?.get('KV-Operation') ?? '';
      if (last !== null && operation === '') live.push(subject.slice(this.prefix.length));
    }
    return live.sort();
  }
}
