/** spec-gaps R18: clientRequestId and sessionId on REST follow the sessionId rules of §4.2. */
export function isValidIdentifier(value: string): boolean {
  // eslint-disable-next-line no-control-regex
  return value.length >= 1 && value.length <= 64 && !/[/\s\u0000-\u001f\u007f]/u.test(value);
}
