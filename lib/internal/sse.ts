// Reading a Server-Sent Events body into frames; used by the protocol client's event streams
// and the sandbox's process-log follower.
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One dispatched Server-Sent Event. */
export interface SseFrame {
  /** Absent or undefined when the event had no `id:` line. */
  id?: string | undefined;
  /** Absent or undefined when the event had no `event:` line. */
  event?: string | undefined;
  data: string;
}

export interface SseReadCallbacks {
  onFrame(frame: SseFrame): void;
  onRetry?(ms: number): void;
  /** Called for every chunk of bytes, heartbeats included: proof the stream is alive. */
  onActivity?(): void;
  /**
   * Called each time the reader starts waiting for the next chunk, after the previous
   * one has been fully dispatched: the time from here to `onActivity` is the server's,
   * the time from `onActivity` to here is ours (a slow frame consumer).
   */
  onWaiting?(): void;
}

/** Larger than any single event we accept; a bigger one ends the stream instead of the process. */
export const DEFAULT_MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Reads an SSE body to its end, dispatching frames as they complete. Decoding is done
 * in streaming mode so a UTF-8 character split across chunks survives; CR and CRLF
 * line ends become LF here, and the rest of the framing (comments, `retry:`,
 * multi-line `data:`) is eventsource-parser's job.
 * Resolves on a clean end of the body; rejects on a read error or an oversized event.
 */
export async function readSseBody(
  body: ReadableStream<Uint8Array>,
  callbacks: SseReadCallbacks,
  maxEventChars = DEFAULT_MAX_EVENT_CHARS,
): Promise<void> {
  let failure: Error | undefined;
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      // Only the default event type carries envelopes; named events are another protocol's business.
      if (message.event !== undefined && message.event !== "message") return;
      if (message.data === "") return;
      // The parser's event is already a fresh { id, event, data }: handed on as the frame, not copied.
      callbacks.onFrame(message);
    },
    onRetry: (ms) => callbacks.onRetry?.(ms),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") failure = error;
    },
    maxBufferSize: maxEventChars,
  });
  const decoder = new TextDecoder();
  const lineEnds = new LineEnds();
  const reader = body.getReader();
  try {
    for (;;) {
      callbacks.onWaiting?.();
      const { done, value } = await reader.read();
      if (done) break;
      callbacks.onActivity?.();
      parser.feed(lineEnds.normalize(decoder.decode(value, { stream: true })));
      if (failure) throw failure;
    }
    const tail = decoder.decode();
    if (tail) parser.feed(lineEnds.normalize(tail));
  } finally {
    reader.releaseLock();
  }
}

/**
 * Turns CR and CRLF line ends into LF across chunk boundaries. The parser keeps a line
 * that ends in CR at the end of a chunk until it knows whether a LF follows, so a
 * CR-framed event would wait for the next bytes (a heartbeat away) and the last one of
 * a body would be lost; remembering the CR here lets every complete event out at once.
 */
class LineEnds {
  #afterCr = false;

  normalize(text: string): string {
    if (text === "") return text;
    const rest = this.#afterCr && text.charCodeAt(0) === 10 ? text.slice(1) : text;
    this.#afterCr = text.charCodeAt(text.length - 1) === 13;
    return rest.includes("\r") ? rest.replace(/\r\n?/g, "\n") : rest;
  }
}
