/**
 * The end of a `gw` run: its exit code, once everything it wrote has left stdout and stderr. To a pipe
 * (`gw … --json | jq`) Node writes asynchronously, and `process.exit` drops what the reader has not taken yet:
 * the document was cut at a multiple of 64 KiB (the pipe's buffer) with exit 0.
 */
export function exitWhenWritten(
  code: number,
  streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr],
): void {
  process.exitCode = code;
  // still an explicit exit once written: a request left behind by an interrupt must not keep the process alive
  void Promise.all(streams.map(flushed)).then(() => process.exit(code));
}

/** Resolves once every write made before it has been handed to the OS, or has failed (a reader gone: EPIPE). */
function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
