// Raw: the practical limit of the same protocol work. Bare fetch for POSTs (result from the body),
// one GET read with eventsource-parser, JSON.parse per frame. No validation, no dedupe, no
// reconnect, no Rx.
import { createParser } from "eventsource-parser";
import type { BenchConnection, ConnectOptions, Contender } from "./contender.js";

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: unknown;
}

export const raw: Contender = {
  name: "raw",
  connect(options: ConnectOptions): BenchConnection {
    const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    const url = `${options.baseUrl}${options.path}`;
    const firstUrl = options.bootstrapQuery ? `${url}?${new URLSearchParams(options.bootstrapQuery).toString()}` : url;
    const listeners = options.listeners ?? [];
    const stream = new AbortController();
    let nextId = 1;
    let posted = false;
    let streamOpen = false;
    let reading: Promise<void> | undefined;

    const read = async (): Promise<void> => {
      const response = await doFetch(url, { headers: { accept: "text/event-stream" }, signal: stream.signal });
      if (!response.ok || !response.body) throw new Error(`event stream: HTTP ${response.status}`);
      streamOpen = true;
      const parser = createParser({
        onEvent: (event) => {
          const message = JSON.parse(event.data) as RpcAnswer;
          if (message.method === "session/update") for (const listener of listeners) listener(message.params);
        },
      });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    };

    return {
      async call(method, params) {
        const response = await doFetch(posted ? url : firstUrl, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`);
        posted = true;
        // The server knows the connection once a POST went through: only then may the GET open.
        reading ??= read().catch(() => undefined);
        const answer = JSON.parse(text) as RpcAnswer;
        if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
        return answer.result;
      },
      get streamOpen() {
        return streamOpen;
      },
      async close() {
        stream.abort();
        await reading;
        if (!posted) return;
        await doFetch(url, { method: "DELETE", signal: AbortSignal.timeout(2000) }).then(
          (response) => response.arrayBuffer(),
          () => undefined,
        );
      },
    };
  },
};
