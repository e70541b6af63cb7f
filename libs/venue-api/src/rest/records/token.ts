/** W1 single-use WebSocket token (§4.3, §5). The token itself is a secret: never log it. */
export interface WebSocketToken {
  token: string;
  /** Epoch milliseconds as text, when the venue sent it. */
  expiresAt?: string;
}
