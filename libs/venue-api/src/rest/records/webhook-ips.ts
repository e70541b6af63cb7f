/** §4.12 published list of webhook source addresses (`ips.json`). */
import { integer, listOf, nullable, optional, record, text, type Reader } from './shape.js';

export interface WebhookChangeNotice {
  message?: string;
  effective_date?: string;
}

export interface WebhookSourceAddresses {
  service?: string;
  /** Increments on each change of the list. */
  version: number;
  /** CIDR blocks; `/32` is a single address. */
  ipv4_cidrs: string[];
  created_at?: string;
  last_updated?: string;
  /** Null when no change is planned. */
  change_notice: WebhookChangeNotice | null;
}

export const webhookSourceAddressesReader: Reader<WebhookSourceAddresses> = record<WebhookSourceAddresses>({
  service: optional(text),
  version: integer,
  ipv4_cidrs: listOf(text),
  created_at: optional(text),
  last_updated: optional(text),
  change_notice: nullable(record<WebhookChangeNotice>({ message: optional(text), effective_date: optional(text) })),
});
