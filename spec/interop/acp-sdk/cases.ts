/**
 * The behavioural suite against the official SDK's `AcpServer`, as a table of cases that
 * a spec file runs once per transport. Each case gets a fresh server (so request logs and
 * cookie checks are its own) and a `connect` that builds our client for the transport.
 * `knownFailing` marks what a transport does not do yet: jest's `it.failing` then passes
 * only while the case fails, so fixing one turns the suite red until the mark goes.
 * `transports` limits a case to the transports it means something on.
 */
import { filter, firstValueFrom } from "rxjs";
import {
  AcpHttpClient,
  AcpInterruptedError,
  AcpMessageTooLargeError,
  AcpUnsupportedError,
  isNotification,
  readSessionUpdate,
  type CreateElicitationParams,
  type SessionUpdate,
  type AcpParseError,
  type AcpRecovery,
  type AcpClientHandlers,
  type AcpEnvelope,
  type AcpHttpClientOptions,
} from "../../../lib/acp-http/index.js";
import type { AcpSdkServer, AcpSdkServerOptions } from "../../support/acp-sdk-server.js";

export const COOKIE = { name: "acp-affinity", value: "backend-3" } as const;
export const CWD = "/tmp";

export type Transport = "http" | "websocket";

export interface CaseContext {
  readonly server: AcpSdkServer;
  readonly transport: Transport;
  /** Our client for this transport, disconnected after the case. */
  connect(extra?: Partial<AcpHttpClientOptions> & { handlers?: AcpClientHandlers }): AcpHttpClient;
}

export interface InteropCase {
  readonly name: string;
  readonly server?: AcpSdkServerOptions;
  /** Transports on which this case is known to fail today (the work list). */
  readonly knownFailing?: readonly Transport[];
  readonly transports?: readonly Transport[];
  readonly run: (context: CaseContext) => Promise<void>;
}

const textOf = (envelope: AcpEnvelope, sessionId: string): string | undefined => {
  if (!isNotification(envelope) || envelope.method !== "session/update") return undefined;
  const params = envelope.params as { sessionId?: string; update?: { sessionUpdate?: string; content?: { text?: string } } };
  if (params.sessionId !== sessionId || params.update?.sessionUpdate !== "agent_message_chunk") return undefined;
  return params.update.content?.text;
};

function chunks(client: AcpHttpClient, sessionId: string): { texts: string[]; stop(): void } {
  const texts: string[] = [];
  const subscription = client.envelopes$.subscribe((envelope) => {
    const text = textOf(envelope, sessionId);
    if (text !== undefined) texts.push(text);
  });
  return { texts, stop: () => subscription.unsubscribe() };
}

const firstChunk = (client: AcpHttpClient, sessionId: string): Promise<AcpEnvelope> =>
  firstValueFrom(client.envelopes$.pipe(filter((envelope) => textOf(envelope, sessionId) !== undefined)));

async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function openSession(client: AcpHttpClient): Promise<string> {
  await client.initialize();
  return (await client.newSession({ cwd: CWD, mcpServers: [] })).sessionId;
}

const prompt = (client: AcpHttpClient, sessionId: string, text: string, timeoutMs = 10_000) =>
  client.prompt({ sessionId, prompt: [{ type: "text", text }] }, { timeoutMs });

export const CASES: readonly InteropCase[] = [
  {
    name: "connect: initialize learns the connection id and the agent's capabilities",
    run: async ({ connect }) => {
      const client = connect();
      const result = await client.initialize();
      expect(result.protocolVersion).toBe(1);
      expect(result.agentCapabilities?.loadSession).toBe(true);
      expect(client.connectionId).toMatch(/^[0-9a-f-]{36}$/);
      await waitFor(() => client.state === "open", 5000, "the connection stream to open");
    },
  },
  {
    name: "stream: a prompt's updates arrive on envelopes$ before its end_turn result",
    run: async ({ connect }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      let atResult = "";
      const result = await prompt(client, sessionId, "hello sdk world").then((r) => ((atResult = seen.texts.join("")), r));
      expect(result.stopReason).toBe("end_turn");
      expect(atResult).toBe("echo: hello sdk world");
      seen.stop();
    },
  },
  {
    name: "permission: the agent's request is answered by handlers.requestPermission",
    // Over HTTP the answer POST must carry Acp-Session-Id (AcpServer: 400 "Missing Acp-Session-Id").
    run: async ({ connect }) => {
      const asked: string[] = [];
      const client = connect({
        handlers: {
          requestPermission: (params) => {
            asked.push(params.sessionId);
            return { outcome: { outcome: "selected", optionId: "allow" } };
          },
        },
      });
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      expect((await prompt(client, sessionId, "PERMISSION please")).stopReason).toBe("end_turn");
      expect(asked).toEqual([sessionId]);
      expect(seen.texts).toEqual(["permission:allow"]);
      seen.stop();
    },
  },
  {
    name: "stable session methods: list, delete and logout, as the agent advertised them",
    run: async ({ connect, server }) => {
      const client = connect();
      const first = await openSession(client);
      const second = (await client.newSession({ cwd: CWD, mcpServers: [] })).sessionId;
      expect(client.agentCapabilities?.sessionCapabilities?.delete).toEqual({});
      expect(client.agentCapabilities?.auth?.logout).toEqual({});
      const listed = async () => (await client.listSessions({}, { timeoutMs: 5000 })).sessions.map((s) => s.sessionId);
      expect(await listed()).toEqual([first, second]);
      expect(await client.deleteSession({ sessionId: first }, { timeoutMs: 5000 })).toEqual({});
      expect(server.log.deletes).toEqual([first]);
      expect(await listed()).toEqual([second]);
      await client.logout({}, { timeoutMs: 5000 });
      expect(server.log.logouts).toBe(1);
    },
  },
  {
    name: "additionalDirectories reach the agent on session/new, session/load and session/resume",
    run: async ({ connect, server }) => {
      const dirs = ["/tmp/extra-a", "/tmp/extra-b"];
      const creator = connect();
      await creator.initialize();
      const { sessionId } = await creator.newSession({ cwd: CWD, mcpServers: [], additionalDirectories: dirs });
      const loader = connect();
      await loader.initialize();
      await loader.loadSession({ sessionId, cwd: CWD, mcpServers: [], additionalDirectories: dirs.slice(1) });
      const resumer = connect();
      await resumer.initialize();
      await resumer.resumeSession({ sessionId, cwd: CWD, additionalDirectories: dirs.slice(0, 1) });
      expect(server.log.directories).toEqual([
        { method: "session/new", sessionId, additionalDirectories: dirs },
        { method: "session/load", sessionId, additionalDirectories: dirs.slice(1) },
        { method: "session/resume", sessionId, additionalDirectories: dirs.slice(0, 1) },
      ]);
    },
  },
  {
    name: "a boolean config option is set with type boolean, and the agent answers the new value",
    run: async ({ connect }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const params = { sessionId, configId: "auto_approve", type: "boolean" as const, value: true };
      const answer = await client.setSessionConfigOption(params, { timeoutMs: 5000 });
      expect(answer).toMatchObject({ configOptions: [{ id: "auto_approve", type: "boolean", currentValue: true }] });
    },
  },
  {
    name: "elicitation (form): the agent's question is answered by handlers.createElicitation",
    run: async ({ connect }) => {
      const asked: CreateElicitationParams[] = [];
      const client = connect({
        handlers: {
          createElicitation: (params) => {
            asked.push(params);
            return { action: "accept", content: { project: "rx", runs: 3 } };
          },
        },
      });
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      expect((await prompt(client, sessionId, "ELICIT")).stopReason).toBe("end_turn");
      expect(asked).toMatchObject([{ mode: "form", sessionId, message: "Which project, and how many runs?" }]);
      expect(JSON.parse(seen.texts.join(""))).toEqual({ action: "accept", content: { project: "rx", runs: 3 } });
      seen.stop();
    },
  },
  {
    name: "elicitation: without a handler the question is declined, never accepted",
    run: async ({ connect }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      expect((await prompt(client, sessionId, "ELICIT")).stopReason).toBe("end_turn");
      expect(JSON.parse(seen.texts.join(""))).toEqual({ action: "decline" });
      seen.stop();
    },
  },
  {
    name: "elicitation (URL): accepted, then the agent's elicitation/complete arrives on envelopes$",
    run: async ({ connect }) => {
      const urls: string[] = [];
      const client = connect({
        handlers: {
          createElicitation: (params) => {
            if (params.mode === "url") urls.push(params.url);
            return { action: "accept" };
          },
        },
      });
      const sessionId = await openSession(client);
      const completed = firstValueFrom(
        client.envelopes$.pipe(filter((e) => isNotification(e) && e.method === "elicitation/complete")),
      );
      expect((await prompt(client, sessionId, "ELICITURL")).stopReason).toBe("end_turn");
      expect(urls).toEqual(["https://example.invalid/sign-in"]);
      expect(((await completed) as { params?: { elicitationId?: string } }).params?.elicitationId).toMatch(/^elicit-/);
    },
  },
  {
    name: "elicitation: cancelling the turn answers the open question cancel at once",
    run: async ({ connect }) => {
      let signal: AbortSignal | undefined;
      const client = connect({
        handlers: {
          createElicitation: (_params, context) => {
            signal = context.signal;
            return new Promise(() => {});
          },
        },
      });
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      const turn = prompt(client, sessionId, "ASKWAIT");
      await waitFor(() => signal !== undefined, 5000, "the question to reach the handler");
      await client.cancel({ sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(signal?.aborted).toBe(true);
      expect(JSON.parse(seen.texts.join(""))).toEqual({ action: "cancel" });
      seen.stop();
    },
  },
  {
    name: "the newer update kinds are read typed: usage, notice, compaction, session info, config options",
    run: async ({ connect }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const updates: SessionUpdate[] = [];
      const subscription = client.envelopes$.subscribe((envelope) => {
        if (!isNotification(envelope) || envelope.method !== "session/update") return;
        const update = readSessionUpdate((envelope.params as { update?: unknown }).update);
        if (update) updates.push(update);
      });
      expect((await prompt(client, sessionId, "KINDS")).stopReason).toBe("end_turn");
      subscription.unsubscribe();
      expect(updates.map((u) => u.sessionUpdate)).toEqual([
        "usage_update",
        "notice",
        "compaction_update",
        "compaction_summary_chunk",
        "compaction_update",
        "session_info_update",
        "config_option_update",
      ]);
      const usage = updates[0];
      if (usage?.sessionUpdate !== "usage_update") throw new Error("no usage_update");
      expect([usage.used, usage.size, usage.cost?.amount, usage.cost?.currency]).toEqual([1200, 200000, 0.25, "USD"]);
    },
  },
  {
    name: "an unstable method the agent did not advertise fails with AcpUnsupportedError, unsent",
    run: async ({ connect }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const fork = client.unstableForkSession({ sessionId, cwd: CWD });
      await expect(fork).rejects.toBeInstanceOf(AcpUnsupportedError);
      await expect(fork).rejects.toMatchObject({ kind: "unsupported", capability: "sessionCapabilities.fork" });
      await expect(client.unstableSetSessionTitle({ sessionId, title: "x" })).rejects.toMatchObject({
        kind: "unsupported",
      });
    },
  },
  {
    name: "cancel: session/cancel during a streaming turn ends it with stopReason cancelled",
    run: async ({ connect, server }) => {
      const client = connect();
      const sessionId = await openSession(client);
      const started = firstChunk(client, sessionId);
      const turn = prompt(client, sessionId, "SLOW", 20_000);
      await started;
      await client.cancel({ sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(server.log.sessionCancels).toEqual([sessionId]);
    },
  },
  {
    name: "$/cancel_request: aborting a request tells the agent, whose handler stops",
    run: async ({ connect, server }) => {
      const client = connect();
      await client.initialize();
      const controller = new AbortController();
      const hung = client.request("_test/hang", {}, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort();
      await expect(hung).rejects.toThrow();
      await waitFor(() => server.log.cancelledRequests.length > 0, 3000, "the agent to see $/cancel_request");
    },
  },
  {
    name: "close: disconnect() ends the connection on the server (DELETE or socket close)",
    run: async ({ connect, server }) => {
      const client = connect();
      await openSession(client);
      const connectionId = client.connectionId;
      await client.disconnect();
      expect(client.closeInfo?.reason).toBe("disconnected");
      const deletes = server.requests.filter((r) => r.kind === "DELETE");
      const upgrades = server.requests.filter((r) => r.kind === "UPGRADE");
      expect(deletes.length + upgrades.length).toBeGreaterThan(0);
      if (deletes.length > 0) expect(deletes[0]?.headers["acp-connection-id"]).toBe(connectionId);
    },
  },
  {
    name: "Acp-Protocol-Version on every request after initialize",
    // A WebSocket has one upgrade, before initialize: there is no later request to carry it.
    transports: ["http"],
    run: async ({ connect, server }) => {
      const client = connect();
      const sessionId = await openSession(client);
      await prompt(client, sessionId, "versioned");
      const later = server.requests.filter((r) => r.headers["acp-connection-id"] !== undefined);
      expect(later.length).toBeGreaterThan(0);
      expect(later.filter((r) => r.headers["acp-protocol-version"] !== "1")).toEqual([]);
    },
  },
  {
    name: "cookie affinity: the server's cookie comes back on every later request and upgrade, across a recovery",
    server: { cookie: COOKIE },
    run: async ({ connect, server }) => {
      const client = connect({ recover: true, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      const sessionId = await openSession(client);
      await prompt(client, sessionId, "sticky");
      await server.restart();
      await waitFor(() => server.log.loads.includes(sessionId), 10_000, "session/load after the restart");
      await prompt(client, sessionId, "still sticky");
      await client.disconnect();
      expect(server.requests.length).toBeGreaterThan(1);
      expect(server.requests.filter((r) => r.afterCookieSet).length).toBeGreaterThan(0);
      expect(server.missingCookie().map((r) => r.kind)).toEqual([]);
    },
  },
  {
    name: "a dropped TCP connection: the session still works afterwards",
    run: async ({ connect, server, transport }) => {
      // Over a WebSocket the connection ends with its socket: only a recovery brings the session back.
      const client = connect({ recover: true, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      const sessionId = await openSession(client);
      const connectionId = client.connectionId;
      server.dropSockets();
      if (transport === "websocket") {
        // The ACP connection ends with its socket: a new one is initialized and the session loaded.
        await waitFor(() => server.log.loads.includes(sessionId), 10_000, "session/load on a new socket");
      }
      expect((await prompt(client, sessionId, "after the blip", 15_000)).stopReason).toBe("end_turn");
      // Over HTTP the GETs come back on the same connection: AcpServer kept it.
      if (transport === "http") expect(client.connectionId).toBe(connectionId);
      else expect(client.connectionId).not.toBe(connectionId);
    },
  },
  {
    name: "recovery: after a server restart the client re-initializes and session/loads its sessions",
    run: async ({ connect, server }) => {
      const client = connect({ recover: true, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      const recoveries: AcpRecovery[] = [];
      client.recoveries$.subscribe((recovery) => recoveries.push(recovery));
      const sessionId = await openSession(client);
      const before = client.connectionId;
      await server.restart();
      await waitFor(() => recoveries.length === 1, 10_000, "a recovery");
      expect(recoveries[0]).toMatchObject({ loaded: [sessionId], failed: [] });
      expect(server.log.loads).toEqual([sessionId]);
      expect(client.closeInfo).toBeUndefined();
      expect(client.connectionId).not.toBe(before);
      expect((await prompt(client, sessionId, "after the restart", 15_000)).stopReason).toBe("end_turn");
    },
  },
  {
    name: "recovery: a request in flight when the connection is lost fails with AcpInterruptedError",
    run: async ({ connect, server }) => {
      const client = connect({ recover: true, reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      const sessionId = await openSession(client);
      const started = firstChunk(client, sessionId);
      const turn = prompt(client, sessionId, "SLOW", 20_000);
      await started;
      // Watched before the restart: the request may fail while the restart is still under way.
      const interrupted = expect(turn).rejects.toBeInstanceOf(AcpInterruptedError);
      await server.restart();
      await interrupted;
      expect((await prompt(client, sessionId, "next turn", 15_000)).stopReason).toBe("end_turn");
    },
  },
  {
    name: "maxMessageBytes: a larger message is a typed parse error; the connection and session go on",
    run: async ({ connect }) => {
      // Above the initialize answer (about 270 bytes with the agent's capabilities), below the long chunk.
      const client = connect({ maxMessageBytes: 320 });
      const errors: AcpParseError[] = [];
      client.parseErrors$.subscribe((error) => errors.push(error));
      const sessionId = await openSession(client);
      const seen = chunks(client, sessionId);
      const long = "x".repeat(400);
      expect((await prompt(client, sessionId, `short ${long} tail`)).stopReason).toBe("end_turn");
      expect(seen.texts).toEqual(["echo:", " short", " tail"]);
      expect(errors).toHaveLength(1);
      expect(errors[0]?.tooLarge).toBeInstanceOf(AcpMessageTooLargeError);
      expect(errors[0]?.tooLarge?.limit).toBe(320);
      seen.stop();
    },
  },
];
