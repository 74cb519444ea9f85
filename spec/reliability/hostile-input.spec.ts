/**
 * Hostile metadata and paths against the real 0.4.2 server: prototype-polluting keys in
 * `_meta`, filesystem paths with `..`, spaces, unicode and `?#%`, and ids that need encoding.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AcpEnvelope } from "../../lib/acp-http/index.js";
import { envelopeToEvent } from "../../lib/sandbox/events/events.js";
import { SandboxAgentClient, type SandboxEvent, type SessionMetadata } from "../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { sessionParams, v1Client, waitFor } from "./support/helpers.js";

let server: SandboxAgentServer;
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  server = await startSandboxAgent();
});

afterAll(async () => {
  await server?.stop();
});

afterEach(() => {
  // Nothing reached any prototype, whatever the test did.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
});

const HOSTILE = '{"__proto__":{"polluted":"proto"},"constructor":{"prototype":{"polluted":"ctor"}},"prototype":{"polluted":"p"},"ok":1}';

describe("hostile _meta", () => {
  it("__proto__ / constructor keys travel as plain data through the protocol client and the event mapping", async () => {
    const client = v1Client(server.baseUrl, "proto");
    const envelopes: AcpEnvelope[] = [];
    client.envelopes$.subscribe((envelope) => envelopes.push(envelope));
    await client.initialize({ _meta: JSON.parse(HOSTILE) as Record<string, unknown> });
    const { sessionId } = await client.newSession({ ...sessionParams(), _meta: JSON.parse(HOSTILE) as Record<string, unknown> });
    const echoed = (await client.extMethod("_probe/echo", { _meta: JSON.parse(HOSTILE) as unknown })) as { _meta: Record<string, unknown> };
    // The key is an own, ordinary property of the result, not a prototype.
    expect(Object.getOwnPropertyNames(echoed._meta)).toEqual(expect.arrayContaining(["__proto__", "constructor", "ok"]));
    expect(Object.getPrototypeOf(echoed._meta)).toBe(Object.prototype);
    const update = JSON.parse(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"_meta":${HOSTILE},"__proto__":{"polluted":"u"}}`) as unknown;
    await client.extMethod("_probe/notify", { method: "session/update", params: { sessionId, update } });
    await client.extMethod("_probe/notify", { method: "_sandboxagent/session/ended", params: JSON.parse(`{"session_id":"${sessionId}","data":{"reason":"completed","__proto__":{"polluted":"e"}},"__proto__":{"polluted":"x"}}`) as unknown });
    await waitFor(() => envelopes.some((envelope) => "method" in envelope && envelope.method === "_sandboxagent/session/ended"), 5000, "the ended notification");
    const events = envelopes.map(envelopeToEvent).filter((event): event is SandboxEvent => event !== undefined);
    const chunk = events.find((event) => event.kind === "update" || event.kind === "unknown-update");
    expect(chunk).toBeDefined();
    const ended = events.find((event) => event.kind === "session-ended");
    expect(ended).toMatchObject({ kind: "session-ended", sessionId, reason: "completed" });
    expect(Object.getPrototypeOf(ended)).toBe(Object.prototype);
    await client.disconnect();
  }, 30_000);

  it("session metadata with hostile keys through the sandbox client", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    await client.connect();
    const metadata = JSON.parse(`{"title":"t",${HOSTILE.slice(1)}`) as SessionMetadata;
    const handle = await client.newSession({ cwd: server.home, metadata });
    expect(typeof handle.sessionId).toBe("string");
    expect(Object.getPrototypeOf(handle.metadata)).toBe(Object.prototype);
    expect((await client.prompt(handle.sessionId, "chunks 1")).stopReason).toBe("end_turn");
    await client.disconnect();
  }, 30_000);
});

describe("paths and ids that need encoding", () => {
  const NAMES = ["with space.txt", "ünïcødé-漢字-🎉.txt", "q?x#y%z&a=b+c.txt", "%2e%2e%2fnot-a-traversal.txt", "semi;colon,comma'quote.txt"];

  it("client.fs round-trips files whose names hold spaces, unicode and ?#%, and `..` segments resolve as paths", async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    const dir = join(server.home, "hostile paths ?#%");
    await client.fs.mkdir(dir);
    await client.fs.mkdir(join(dir, "sub"));
    for (const [i, name] of NAMES.entries()) {
      const path = join(dir, name);
      const content = `content ${i} ${name} ✓`;
      const written = await client.fs.writeFile(path, content);
      expect(written).toBeDefined();
      expect(new TextDecoder().decode(await client.fs.readFile(path))).toBe(content);
      // The server wrote exactly that file: no truncation at ?, #, or %.
      expect(readFileSync(path, "utf8")).toBe(content);
      expect((await client.fs.stat(path)).size ?? content.length).toBeGreaterThan(0);
    }
    const listed = (await client.fs.listEntries(dir)).map((entry) => entry.name);
    expect(listed).toEqual(expect.arrayContaining([...NAMES, "sub"]));
    // `sub/../x` is the file x in dir: the server resolves the path, the client sends it verbatim.
    await client.fs.writeFile(`${dir}/sub/../dotdot.txt`, "dd");
    expect(existsSync(join(dir, "dotdot.txt"))).toBe(true);
    expect(new TextDecoder().decode(await client.fs.readFile(join(dir, "dotdot.txt")))).toBe("dd");
    const moved = await client.fs.move(join(dir, NAMES[2] as string), join(dir, "sub", "moved ?#%.txt"));
    expect(moved).toBeDefined();
    expect(existsSync(join(dir, "sub", "moved ?#%.txt"))).toBe(true);
    await client.fs.deleteEntry(join(dir, "sub"), { recursive: true });
    expect(existsSync(join(dir, "sub"))).toBe(false);
    await client.disconnect();
  }, 30_000);

  it('a serverId like "a/b c?#%é" and session ids that need encoding work end to end', async () => {
    const client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false, serverId: "a/b c?#%é" });
    const events: SandboxEvent[] = [];
    client.events$.subscribe((event) => events.push(event));
    await client.connect();
    const session = await client.newSession({ cwd: server.home });
    expect((await client.prompt(session.sessionId, "chunks 3")).stopReason).toBe("end_turn");
    expect(events.filter((event) => event.kind === "update")).toHaveLength(3);
    const weird = "sess/../x ?#%é 漢";
    const loaded = await client.loadSession(weird, { cwd: server.home });
    expect(loaded.sessionId).toBe(weird);
    // The server saw the whole id, decoded, as one path segment.
    const listing = (await (await fetch(`${server.baseUrl}/v1/acp`)).json()) as { servers: { serverId: string }[] };
    expect(listing.servers.map((entry) => entry.serverId)).toContain("a/b c?#%é");
    await client.disconnect();
  }, 30_000);
});
