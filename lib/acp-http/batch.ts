/**
 * JSON-RPC 2.0 batches: one frame or body holding an array of envelopes. Each member is
 * handled on its own, as if it had come alone, so one bad member costs only itself.
 */

/** The members of a batch as JSON texts; undefined when `text` is not a non-empty JSON array of objects. */
export function splitBatch(text: string): string[] | undefined {
  if (!startsWithBracket(text)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined; // Not JSON at all: the caller reports it as it would any bad frame.
  }
  // Only an array of objects is a batch; anything else ([1], []) is one bad frame, reported whole.
  if (!Array.isArray(json) || json.length === 0 || !json.every(isObject)) return undefined;
  return json.map((member) => JSON.stringify(member) ?? "null");
}

// Checked by hand: a frame is usually one object, and trimming a large one would copy it.
function startsWithBracket(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
