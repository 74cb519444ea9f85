import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One dispatched Server-Sent Event. */
export interface SseFrame {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface SseReadCallbacks {
  onFrame(frame: SseFrame): void;
  onRetry?(ms: number): void;
  /** Called for every chunk of bytes, heartbeats included: proof the stream is alive. */
  onActivity?(): void;
}

/** Larger than any single event we accept; a bigger one ends the stream instead of the process. */
export const DEFAULT_MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Reads an SSE body to its end, dispatching frames as they complete. Decoding is done
 * in streaming mode so a UTF-8 character split across chunks survives; framing
 * (LF, CR, CRLF, comments, `retry:`, multi-line `data:`) is eventsource-parser's job.
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
      callbacks.onFrame({ id: message.id, event: message.event, data: message.data });
    },
    onRetry: (ms) => callbacks.onRetry?.(ms),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") failure = error;
    },
    maxBufferSize: maxEventChars,
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      callbacks.onActivity?.();
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
    }
    const tail = decoder.decode();
    if (tail) parser.feed(tail);
  } finally {
    reader.releaseLock();
  }
}
