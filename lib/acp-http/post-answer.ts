import { AcpNetworkError } from "./errors/network-error.js";
import { isAbort } from "../internal/abort.js";
import { oversize } from "./message-size.js";

export interface PostResult {
  status: number;
  /** The response body when it is a JSON payload; undefined for 202 and empty bodies. */
  json: string | undefined;
  /** Set when the body exceeded `maxMessageBytes` (its size and first KiB): `json` is then undefined. */
  tooLarge?: { bytes: number; head: string };
}

/** How much of an oversized answer `PostResult.tooLarge` keeps. */
const TOO_LARGE_HEAD_CHARS = 1024;

/**
 * Reads a 2xx POST answer: its body is the JSON-RPC payload when it is JSON (a 200 counts
 * as JSON whatever its content type says), nothing for 202 and empty bodies, and only a
 * size and a head when it is over `limit` (such a body is not parsed). A body cut short is an
 * `AcpNetworkError` (an abort stays the abort).
 */
export async function readPostAnswer(
  response: Response,
  limit: number | undefined,
  operation: string,
): Promise<PostResult> {
  // 202 carries no payload (the answer comes on a stream), so its body is not awaited: some servers end
  // it late (the official SDK's Node adapter over HTTP/2 ends a prompt's 202 with the turn).
  if (response.status === 202) {
    if (response.body) letGo(response.body);
    return { status: 202, json: undefined };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new AcpNetworkError(operation, error);
  }
  const isJson = /json/i.test(response.headers.get("content-type") ?? "");
  const tooLarge = limit === undefined ? undefined : oversize(text, limit);
  if (tooLarge !== undefined) {
    return {
      status: response.status,
      json: undefined,
      tooLarge: { bytes: tooLarge, head: text.slice(0, TOO_LARGE_HEAD_CHARS) },
    };
  }
  return { status: response.status, json: text.length > 0 && (isJson || response.status === 200) ? text : undefined };
}

const ignore = (): undefined => undefined;

/**
 * Lets a 202's body go without awaiting it. Cancelling a body undici has not seen the end of also
 * destroys its keep-alive socket, and an empty body's end is often a packet behind its headers (on
 * loopback, one POST in ten then cost a new connection): a body not over at once gets one timer tick
 * to end before it is cancelled. One with content, or still open after that tick, is cancelled.
 */
function letGo(body: ReadableStream<Uint8Array>): void {
  const reader = body.getReader();
  let over = false;
  const cancel = (): void => void reader.cancel().catch(ignore);
  const end = (done: boolean): void => {
    over = true;
    if (!done) cancel();
  };
  void reader.read().then(({ done }) => end(done), () => end(true));
  // A body already over has settled its read before this microtask runs: no timer for it.
  queueMicrotask(() => void (over || setTimeout(() => over || cancel(), 0)));
}
