/** A client frame after parsing: a JSON object with a string messageType, or why it is not one (W9). */
export type ClientFrame =
  | {
      ok: true;
      messageType: string;
      body: Record<string, unknown>;
      /** The frame exactly as received: §2.1 echoes a failed subscribe's quantity as sent. */
      text: string;
    }
  | { ok: false };

export function parseClientFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false };
  const body = value as Record<string, unknown>;
  const messageType = body['messageType'];
  if (typeof messageType !== 'string') return { ok: false };
  return { ok: true, messageType, body, text };
}
