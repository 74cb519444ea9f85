/**
 * Load: many concurrent sessions on one real server, each running its prompts back to back
 * with streamed updates. Every update must land in its own session's view, none lost, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { SandboxAgentClient, type SandboxEvent } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { range, report } from "./support/helpers.js";

const SOAK = process.env.RELIABILITY_SOAK === "1";
/** Sessions are spread over connections (one agent process each on the 0.4.2 server). */
const CONNECTIONS = SOAK ? 40 : 20;
const SESSIONS_PER_CONNECTION = 10;
const PROMPTS = 20;

let server: SandboxAgentServer;
let unhandled = 0;
const onUnhandled = (): void => {
  unhandled++;
};

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  server = await startSandboxAgent();
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  await server?.stop();
});

/** `chunks N` with N varying by session and turn, so that a misrouted update changes the sequence. */
const chunkCount = (session: number, turn: number): number => 1 + ((session * 7 + turn) % 4);

describe("load", () => {
  it(`${CONNECTIONS * SESSIONS_PER_CONNECTION} concurrent sessions x ${PROMPTS} prompts: zero lost or misrouted updates`, async () => {
    const started = Date.now();
    const clients = Array.from({ length: CONNECTIONS }, () => new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false }));
    await Promise.all(clients.map((client) => client.connect()));
    const lost: SandboxEvent[] = [];
    for (const client of clients) client.events$.subscribe((event) => event.kind === "events-lost" && lost.push(event));
    const views: { session: number; sessionId: string; texts: string[]; foreign: number; stops: string[] }[] = [];
    await Promise.all(
      clients.map(async (client, c) => {
        for (let s = 0; s < SESSIONS_PER_CONNECTION; s++) {
          const handle = await client.newSession({ cwd: server.home });
          const view = { session: c * SESSIONS_PER_CONNECTION + s, sessionId: handle.sessionId, texts: [] as string[], foreign: 0, stops: [] as string[] };
          client.session(handle.sessionId).events$.subscribe((event) => {
            if (!("sessionId" in event) || event.sessionId !== handle.sessionId) view.foreign++;
            if (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk") {
              const content = event.update.content as { text?: unknown };
              if (typeof content.text === "string") view.texts.push(content.text);
            }
          });
          views.push(view);
        }
      }),
    );
    await Promise.all(
      views.map(async (view) => {
        const client = clients[Math.floor(view.session / SESSIONS_PER_CONNECTION)] as SandboxAgentClient;
        for (let turn = 0; turn < PROMPTS; turn++) {
          const outcome = await client.prompt(view.sessionId, `chunks ${chunkCount(view.session, turn)}`);
          view.stops.push(outcome.stopReason);
        }
      }),
    );
    const elapsed = Date.now() - started;
    let updates = 0;
    let mismatched = 0;
    for (const view of views) {
      const expected = Array.from({ length: PROMPTS }, (_, turn) => range(chunkCount(view.session, turn))).flat();
      updates += view.texts.length;
      if (JSON.stringify(view.texts) !== JSON.stringify(expected)) mismatched++;
    }
    report("load", {
      connections: CONNECTIONS,
      sessions: views.length,
      prompts: views.length * PROMPTS,
      updates,
      mismatchedSessions: mismatched,
      foreign: views.reduce((n, view) => n + view.foreign, 0),
      eventsLost: lost.length,
      unhandledRejections: unhandled,
      ms: elapsed,
    });
    expect(views).toHaveLength(CONNECTIONS * SESSIONS_PER_CONNECTION);
    expect(new Set(views.map((view) => `${Math.floor(view.session / SESSIONS_PER_CONNECTION)}/${view.sessionId}`)).size).toBe(views.length);
    expect(lost).toEqual([]);
    expect(mismatched).toBe(0);
    for (const view of views) {
      expect(view.foreign).toBe(0);
      expect(view.stops).toEqual(Array.from({ length: PROMPTS }, () => "end_turn"));
    }
    await Promise.all(clients.map((client) => client.disconnect()));
    expect(unhandled).toBe(0);
  }, 170_000);
});
