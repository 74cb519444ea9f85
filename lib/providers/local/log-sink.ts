/**
 * Where the server's log lines go: any writable stream (`process.stderr`, a `PassThrough`) fits.
 * Structural on purpose, so the emitted declarations need no Node types.
 */
export interface LogSink {
  write(chunk: string): unknown;
}
