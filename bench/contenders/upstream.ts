// Upstream: acp-http-client 0.4.2 (the server's own client) for the same endpoint. It hands every
// inbound message to @agentclientprotocol/sdk's ClientSideConnection, which validates the params of
// known methods with zod before calling the handlers given as `client`.
import { AcpHttpClient, type SessionNotification } from "acp-http-client";
import type { BenchConnection, ConnectOptions, Contender } from "./contender.js";

export const upstream: Contender = {
  name: "upstream",
  connect(options: ConnectOptions): BenchConnection {
    const listeners = options.listeners ?? [];
    let streamOpen = false;
    // Upstream opens its GET on the first write, with no hook to observe it: wrap the fetch it uses.
    const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    const watchedFetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const answer = baseFetch(input, init);
      if ((init?.method ?? "GET") === "GET") void answer.then((response) => (streamOpen = response.ok), () => undefined);
      return answer;
    }) as typeof globalThis.fetch;
    const client = new AcpHttpClient({
      baseUrl: options.baseUrl,
      fetch: watchedFetch,
      transport: { path: options.path, ...(options.bootstrapQuery ? { bootstrapQuery: options.bootstrapQuery } : {}) },
      client: {
        // Upstream has a single handler per kind: fan-out to several consumers is the caller's loop.
        sessionUpdate: async (notification: SessionNotification) => {
          for (const listener of listeners) listener(notification);
        },
        // The echo mock's own notifications (`mock/echo`) land here; without a handler the SDK logs each one.
        extNotification: async () => undefined,
      },
    });
    return {
      call: (method, params) => client.extMethod(method, params),
      get streamOpen() {
        return streamOpen;
      },
      close: () => client.disconnect(),
    };
  },
};
