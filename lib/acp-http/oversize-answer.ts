import type { JsonRpcId } from "./envelope.js";

/** How much of an oversized message is looked at: serializers write `id` before `result`. */
export const ANSWER_HEAD_CHARS = 4096;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The id of the request an oversized message answers, read from its first characters
 * without parsing it (that is what the size limit forbids), so that the request fails at
 * once instead of waiting for an answer that was dropped. Undefined unless the head shows
 * a top-level object with an `id` (number or string) and a `result` or `error` key, and no
 * `method` before them: a request or notification of the agent answers nothing.
 */
export function answeredIdOf(text: string): JsonRpcId | undefined {
  const head = text.length > ANSWER_HEAD_CHARS ? text.slice(0, ANSWER_HEAD_CHARS) : text;
  const start = head.search(/\S/);
  if (start < 0 || head[start] !== "{") return undefined;
  let depth = 0;
  let expectKey = false;
  let key: string | undefined;
  let id: JsonRpcId | undefined;
  let answer = false;
  for (let i = start; i < head.length && !(answer && id !== undefined); i++) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) break;
      if (depth === 1 && expectKey) {
        key = JSON.parse(head.slice(i, end + 1)) as string;
        expectKey = false;
        if (key === "method") return undefined;
        if (key === "result" || key === "error") answer = true;
      } else if (depth === 1 && key === "id") {
        id = JSON.parse(head.slice(i, end + 1)) as string;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (depth === 1 && c === ",") {
      expectKey = true;
      key = undefined;
    } else if (depth === 1 && key === "id" && c !== undefined && (c === "-" || (c >= "0" && c <= "9"))) {
      NUMBER.lastIndex = i;
      const match = NUMBER.exec(head);
      if (!match) break;
      id = Number(match[0]);
      i += match[0].length - 1;
    }
  }
  return answer ? id : undefined;
}

/** The index of the quote that closes the string opening at `open`; -1 when the head ends first. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === '"') return i;
  }
  return -1;
}
