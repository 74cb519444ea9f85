/**
 * The protocol layer's SSE reader (`readSseBody`) dispatches only unnamed events, but the
 * log stream names every event `log`. This removes that one `event:` line from the bytes
 * before they reach the reader, turning each `log` event into an unnamed one; every other
 * line (ids, data, comments, other event names) passes unchanged, so the framing stays the
 * reader's job. Lines are held back only until their end arrives.
 */
export function unnameEvents(body: ReadableStream<Uint8Array>, eventName: string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const drop = new RegExp(`^event: ?${eventName.replace(/[^\w-]/g, "\\$&")}\\r?$`);
  let pending = "";
  const filter = (text: string): string => {
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    const kept = lines.filter((line) => !drop.test(line));
    return kept.length > 0 ? `${kept.join("\n")}\n` : "";
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = filter(decoder.decode(chunk, { stream: true }));
        if (out) controller.enqueue(encoder.encode(out));
      },
      flush(controller) {
        const out = filter(decoder.decode()) + pending;
        if (out) controller.enqueue(encoder.encode(out));
      },
    }),
  );
}
