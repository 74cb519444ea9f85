// An agent-owned terminal's output (ACP v2 draft): base64 bytes on the wire, text in the entry. The
// bytes of one character may be split across chunks, so each terminal keeps one streaming decoder;
// a replacement snapshot starts a fresh one.

/** Decodes one terminal's output chunks, in order, to text. */
export class TerminalOutput {
  #decoder = new TextDecoder("utf-8");

  /** The text of the next chunk (a partial character waits for the chunk that completes it). */
  append(base64: string): string {
    return this.#decoder.decode(bytesOf(base64), { stream: true });
  }

  /** The text of a replacement snapshot of the whole output. */
  replace(base64: string): string {
    this.#decoder = new TextDecoder("utf-8");
    return this.append(base64);
  }
}

function bytesOf(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
