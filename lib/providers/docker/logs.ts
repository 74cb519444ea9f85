// Container output for error messages: the Engine multiplexes stdout and stderr of a non-TTY
// container into frames of [stream, 0, 0, 0, size (u32 big-endian)] followed by the payload.

/** The payloads of a multiplexed log buffer as text (a buffer that is not framed is returned as is). */
export function demuxLogs(buffer: Buffer): string {
  const parts: string[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const size = buffer.readUInt32BE(offset + 4);
    if (stream === undefined || stream > 2 || buffer[offset + 1] !== 0 || offset + 8 + size > buffer.length) {
      return buffer.toString("utf8");
    }
    parts.push(buffer.subarray(offset + 8, offset + 8 + size).toString("utf8"));
    offset += 8 + size;
  }
  return parts.join("");
}

/** `text` with every secret replaced. */
export function redact(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join("[redacted]");
  return out;
}
