/** Malformed JSON text; `position` is the character offset where parsing stopped, when known. */
export class InvalidJsonError extends Error {
  override readonly name = 'InvalidJsonError';
  constructor(
    readonly reason: string,
    readonly position?: number,
  ) {
    super(position === undefined ? `Invalid JSON: ${reason}` : `Invalid JSON at position ${position}: ${reason}`);
  }
}
