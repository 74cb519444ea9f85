/**
 * Base64 and UTF-8 that work without Node's Buffer, so the process API runs in browsers
 * too (Buffer is used when present). The server carries process data as base64 (log
 * entries, input, terminal input).
 */

const CHUNK = 0x8000;

/** Node's Buffer when present: several times faster than atob/btoa on megabytes of log. */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

export function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return portableToBase64(bytes);
}

export function fromBase64(text: string): Uint8Array {
  if (NodeBuffer) {
    const buffer = NodeBuffer.from(text, "base64");
    // A small Buffer is a slice of Node's shared pool: its `.buffer` would expose unrelated bytes. Copy it out.
    const pooled = buffer.byteOffset !== 0 || buffer.byteLength !== buffer.buffer.byteLength;
    return pooled ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, 0, buffer.byteLength);
  }
  return portableFromBase64(text);
}

/** The browser path (exported for its test). */
export function portableToBase64(bytes: Uint8Array): string {
  let binary = "";
  // String.fromCharCode takes its arguments on the stack: feed it bounded slices.
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The browser path (exported for its test). */
export function portableFromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

/** Bytes or text as bytes (text is encoded as UTF-8). */
export function asBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? utf8(data) : data;
}
