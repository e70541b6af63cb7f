/** `wsUrl?token=…&sessionId=…` (§4.2). The result holds the token: never log it. */
export function connectUrl(wsUrl: string, token: string, sessionId: string): string {
  const url = new URL(wsUrl);
  url.searchParams.set('token', token);
  url.searchParams.set('sessionId', sessionId);
  return url.toString();
}

/** Error text safe for logs: any `token=` query value is masked, whatever produced the message. */
export function safeReason(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/token=[^&\s"']*/gi, 'token=[redacted]');
}
