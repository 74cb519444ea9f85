import { fromBase64, utf8 } from "./bytes.js";
import type { LogEntryWire } from "./schemas.js";

/** One chunk of a process's output, as read from its log. */
export interface ProcessLogEntry {
  /** Position in the process's log, shared by all its streams (a filtered read skips numbers). */
  sequence: number;
  /** `stdout`, `stderr` or `pty`. */
  stream: string;
  timestampMs: number;
  /** The raw bytes (the server sends them base64-encoded). */
  data: Uint8Array;
  /** `data` decoded as UTF-8 (a character split across two entries shows as U+FFFD in each). */
  readonly text: string;
}

const decoder = new TextDecoder();

/** Decodes a wire entry; the server documents `base64` and plain text encodings. */
export function toLogEntry(wire: LogEntryWire): ProcessLogEntry {
  const data = wire.encoding === "base64" ? fromBase64(wire.data) : utf8(wire.data);
  let text: string | undefined;
  return {
    sequence: wire.sequence,
    stream: wire.stream,
    timestampMs: wire.timestampMs,
    data,
    get text() {
      return (text ??= decoder.decode(data));
    },
  };
}
