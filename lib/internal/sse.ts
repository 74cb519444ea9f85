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
  /**
   * An event over the limit: it is skipped (reading goes on with the next event) and reported here.
   * Without this callback such an event fails the read instead.
   */
  onTooLarge?(event: OversizedSseEvent): void;
}

/** An event too large to read: what its first characters show. */
export interface OversizedSseEvent {
  /** Its `id:` when a line before its data gave one (so the cursor can move past it). */
  id: string | undefined;
  /** Its `event:` when a line before its data gave one. */
  event: string | undefined;
  /** At least this many characters (counting stops at the limit). */
  chars: number;
  /** The start of its data, up to {@link OVERSIZED_HEAD_CHARS} characters. */
  head: string;
}

/** How much of an oversized event's start is kept for its report. */
export const OVERSIZED_HEAD_CHARS = 4096;

/** The default limit: a bigger event ends the read (or, with `onTooLarge`, is skipped), never the process. */
export const DEFAULT_MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * Reads an SSE body to its end, dispatching frames as they complete. Decoding is done
 * in streaming mode so a UTF-8 character split across chunks survives; CR and CRLF
 * line ends become LF here, and the rest of the framing (comments, `retry:`,
 * multi-line `data:`) is eventsource-parser's job.
 * Resolves on a clean end of the body; rejects on a read error, or on an event over `maxEventChars`
 * unless `onTooLarge` takes it (then the event is skipped up to its blank line and reading goes on).
 */
export async function readSseBody(
  body: ReadableStream<Uint8Array>,
  callbacks: SseReadCallbacks,
  maxEventChars = DEFAULT_MAX_EVENT_CHARS,
): Promise<void> {
  let failure: Error | undefined;
  // Only a reader that reports oversized events watches where each event starts.
  const start = callbacks.onTooLarge ? new EventStart() : undefined;
  /** After an oversized event: its rest is dropped up to its blank line. */
  let skipping = false;
  let afterLf = false;
  /**
   * The oversized event being skipped, reported once its blank line is read: an `id:` may come after
   * its data (the last one wins), and its id is what moves the stream's cursor past it.
   */
  let pending: OversizedSseEvent | undefined;
  const ids = new IdLines();
  const report = (): void => {
    const oversized = pending;
    pending = undefined;
    if (!oversized) return;
    const event = { ...oversized, id: ids.last ?? oversized.id };
    if (event.event === undefined || event.event === "message") callbacks.onTooLarge?.(event);
  };
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
  const feed = (input: string): void => {
    let text = input;
    if (skipping) {
      // The blank line that ends it: across the edge of two texts, or inside this one.
      const end = afterLf && text.charCodeAt(0) === 10 ? 1 : endOfBlankLine(text);
      afterLf = text.charCodeAt(text.length - 1) === 10;
      ids.scan(end < 0 ? text : text.slice(0, end));
      if (end < 0) return;
      skipping = false;
      report();
      text = text.slice(end);
      parser.reset();
      start?.reset();
      if (text === "") return;
    }
    start?.track(text);
    parser.feed(text);
    if (!failure) return;
    if (!start) throw failure;
    // The parser dropped what it held of the event; what is left of it is skipped up to its end.
    failure = undefined;
    skipping = true;
    afterLf = text.charCodeAt(text.length - 1) === 10;
    pending = start.describe();
    // Its `id:` lines in this text: after its start here (the last blank line), or all of it.
    const from = text.lastIndexOf("\n\n");
    ids.reset(from >= 0);
    ids.scan(from >= 0 ? text.slice(from + 2) : text);
  };
  const decoder = new TextDecoder();
  const lineEnds = new LineEnds();
  const reader = body.getReader();
  try {
    for (;;) {
      callbacks.onWaiting?.();
      const { done, value } = await reader.read();
      if (done) break;
      callbacks.onActivity?.();
      feed(lineEnds.normalize(decoder.decode(value, { stream: true })));
    }
    const tail = decoder.decode();
    if (tail) feed(lineEnds.normalize(tail));
    // The body ended inside a skipped event: it is still reported (with the id read so far).
    report();
  } finally {
    reader.releaseLock();
  }
}

/**
 * The last `id:` field among the lines of a skipped event, read across texts: the line still open
 * at the end of a text is kept only while it may be an `id:` line (ids are short).
 */
class IdLines {
  last: string | undefined;
  /** The open line's start; null when it began where it could not be read (or cannot be an id). */
  #open: string | null = "";

  /** From a new event's tail: `atLineStart` when the next text begins a line. */
  reset(atLineStart: boolean): void {
    this.last = undefined;
    this.#open = atLineStart ? "" : null;
  }

  scan(text: string): void {
    let at = 0;
    for (let end = text.indexOf("\n"); end >= 0; at = end + 1, end = text.indexOf("\n", at)) {
      if (this.#open === "") {
        if (text.startsWith("id:", at)) this.last = fieldValue(text.slice(at + 3, end));
      } else if (this.#open !== null) {
        const line = this.#open + text.slice(at, end);
        if (line.startsWith("id:")) this.last = fieldValue(line.slice(3));
      }
      this.#open = "";
    }
    if (this.#open === null) return;
    const open = this.#open + text.slice(at, at + 1025);
    const mayBeId = open.length < 3 ? "id:".startsWith(open) : open.startsWith("id:");
    this.#open = mayBeId && open.length <= 1024 ? open : null;
  }
}

/** A field's value: what follows its colon, less one leading space. */
const fieldValue = (rest: string): string => (rest.charCodeAt(0) === 32 ? rest.slice(1) : rest);

/** Where the text after the first blank line (`\n\n`) starts, or -1. */
function endOfBlankLine(text: string): number {
  const at = text.indexOf("\n\n");
  return at < 0 ? -1 : at + 2;
}

/**
 * The start of the event being read and how long it is so far, for the report of one over the limit
 * (the parser keeps neither once it gives up). Per chunk: one search for the last blank line.
 */
class EventStart {
  #head = "";
  #chars = 0;
  #afterLf = false;

  track(text: string): void {
    const blank = text.lastIndexOf("\n\n");
    const from = blank >= 0 ? blank + 2 : this.#afterLf && text.charCodeAt(0) === 10 ? 1 : -1;
    if (from >= 0) {
      this.#head = text.slice(from, from + OVERSIZED_HEAD_CHARS * 2);
      this.#chars = text.length - from;
    } else {
      if (this.#head.length < OVERSIZED_HEAD_CHARS * 2) this.#head += text.slice(0, OVERSIZED_HEAD_CHARS * 2);
      this.#chars += text.length;
    }
    this.#afterLf = text.charCodeAt(text.length - 1) === 10;
  }

  reset(): void {
    this.#head = "";
    this.#chars = 0;
    this.#afterLf = false;
  }

  /** Its `id:` and `event:` lines before the data, and the data's start. */
  describe(): OversizedSseEvent {
    const text = this.#head;
    let id: string | undefined;
    let event: string | undefined;
    let head = "";
    for (let at = 0; at < text.length; ) {
      const end = text.indexOf("\n", at);
      const line = text.slice(at, end < 0 ? text.length : end);
      if (line.startsWith("data:")) {
        head = text.slice(at + (line.charCodeAt(5) === 32 ? 6 : 5)).replace(/\ndata: ?/g, "\n");
        break;
      }
      if (end < 0) break;
      const value = (prefix: number) => line.slice(line.charCodeAt(prefix) === 32 ? prefix + 1 : prefix);
      if (line.startsWith("id:")) id = value(3);
      else if (line.startsWith("event:")) event = value(6) || undefined;
      at = end + 1;
    }
    return { id, event, chars: this.#chars, head: head.slice(0, OVERSIZED_HEAD_CHARS) };
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
