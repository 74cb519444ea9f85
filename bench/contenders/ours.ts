// Ours: lib/acp-http's AcpHttpClient, configured for the 0.4.2 server, driven through its public API.
import { AcpHttpClient, isNotification } from "../../lib/acp-http/index.js";
import { SANDBOX_AGENT_HEADER } from "../../spec/support/sandbox-agent-transport.js";
import type { BenchConnection, ConnectOptions, Contender } from "./contender.js";

export const ours: Contender = {
  name: "ours",
  connect(options: ConnectOptions): BenchConnection {
    const client = new AcpHttpClient({
      baseUrl: options.baseUrl,
      path: options.path,
      ...SANDBOX_AGENT_HEADER,
      ...(options.bootstrapQuery ? { bootstrapQuery: options.bootstrapQuery } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      closeTimeoutMs: 2000,
    });
    // One subscription per listener: fan-out is the subject's job, which is what is being measured.
    for (const listener of options.listeners ?? []) {
      client.envelopes$.subscribe((envelope) => {
        if (isNotification(envelope) && envelope.method === "session/update") listener(envelope.params);
      });
    }
    return {
      call: (method, params) => client.request(method, params),
      get streamOpen() {
        return client.state === "open";
      },
      close: () => client.disconnect(),
    };
  },
};
