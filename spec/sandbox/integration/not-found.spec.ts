// "Not found" is one error kind across the client's areas: whatever the server answers for a thing
// that is not there (a 404 of any kind, the filesystem's 400 "path not found"), the caller catches
// a `NotFoundError`. Against the real 0.4.2 server (and the v2 contract server for its extension
// routes), each area's own answer, as the server gives it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, toArray } from "rxjs";
import WebSocket from "ws";
import type { WebSocketConstructor } from "../../../lib/internal/web-socket.js";
import {
  NotFoundError,
  SandboxAgentHttpError,
  SandboxAgentClient,
} from "../../../lib/sandbox/index.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { rejection } from "../../support/rejection.js";
import { serverWithClients, v2Factory } from "./servers.js";

const wsConstructor = WebSocket as unknown as WebSocketConstructor;

/** The error `promise` rejects with, checked to be a NotFoundError that names `operation`. */
async function notFound(promise: Promise<unknown>, operation: string): Promise<NotFoundError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(NotFoundError);
  expect((error as NotFoundError).operation).toBe(operation);
  return error as NotFoundError;
}

describe("not found, across areas, against the real sandbox-agent 0.4.2", () => {
  let server: SandboxAgentServer;
  let client: SandboxAgentClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "not-found-spec-"));
    server = await startSandboxAgent();
    // None of these routes needs an agent connection on the released server.
    client = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false, WebSocket: wsConstructor });
  });

  afterAll(async () => {
    await client?.disconnect().catch(() => undefined);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("filesystem: reading, stating, listing, deleting or moving a missing path is a NotFoundError", async () => {
    const missing = join(dir, "missing", "file.txt");
    const read = await notFound(client.fs.readFile(missing), "fs.readFile");
    // The server's own status and words stay on the error.
    expect(read.status).toBe(400);
    expect(read.message).toContain(`path not found: ${missing}`);
    await notFound(client.fs.stat(missing), "fs.stat");
    await notFound(client.fs.listEntries(join(dir, "missing")), "fs.listEntries");
    await notFound(client.fs.deleteEntry(missing), "fs.deleteEntry");
    await notFound(client.fs.move(missing, join(dir, "moved.txt")), "fs.move");
  });

  it("filesystem: a path that exists but is the wrong kind is not a NotFoundError", async () => {
    await client.fs.writeFile(join(dir, "plain.txt"), "x");
    const listed = await rejection(client.fs.listEntries(join(dir, "plain.txt")));
    expect(listed).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request" });
    expect(listed).not.toBeInstanceOf(NotFoundError);
    const read = await rejection(client.fs.readFile(dir));
    expect(read).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request" });
    expect(read).not.toBeInstanceOf(NotFoundError);
  });

  it("processes: every call on an unknown id is a NotFoundError of kind process-not-found", async () => {
    const id = "proc_does_not_exist";
    const calls: Array<[string, Promise<unknown>]> = [
      ["processes.get", client.processes.get(id)],
      ["processes.logs", client.processes.logs(id)],
      ["processes.input", client.processes.input(id, "hi")],
      ["processes.stop", client.processes.stop(id)],
      ["processes.kill", client.processes.kill(id)],
      ["processes.remove", client.processes.remove(id)],
      ["processes.resize", client.processes.resize(id, 80, 24)],
    ];
    for (const [operation, call] of calls) {
      const error = await notFound(call, operation);
      expect(error).toMatchObject({ name: "NotFoundError", kind: "process-not-found" });
      expect((error as SandboxAgentHttpError).processId).toBe(id);
    }
    const followed = await rejection(firstValueFrom(client.processes.logs$(id).pipe(toArray())));
    expect(followed).toBeInstanceOf(NotFoundError);
    const status = await rejection(firstValueFrom(client.processes.status$(id).pipe(toArray())));
    expect(status).toBeInstanceOf(NotFoundError);
  });

  it("terminals: attaching to an unknown process rejects `ready` with a NotFoundError", async () => {
    const terminal = client.processes.terminal("proc_does_not_exist", { readyTimeoutMs: 10_000 });
    try {
      expect(await rejection(terminal.ready)).toBeInstanceOf(NotFoundError);
    } finally {
      terminal.close();
    }
  });

  it("MCP and skills config: a missing entry is a NotFoundError", async () => {
    await notFound(client.config.getMcpConfig({ directory: dir, name: "absent" }), "config.getMcpConfig");
    await notFound(client.config.getSkillsConfig({ directory: dir, name: "absent" }), "config.getSkillsConfig");
  });

  it("desktop recordings: an unknown id is a NotFoundError", async () => {
    await notFound(client.desktop.recordings.get("absent"), "desktop.recordings.get");
    await notFound(client.desktop.recordings.delete("absent"), "desktop.recordings.delete");
  });
});

describe("not found: an agent the server does not have installed (released server, preinstall required)", () => {
  let server: SandboxAgentServer;
  const clients: SandboxAgentClient[] = [];

  beforeAll(async () => {
    // The server then answers 404 agent_not_installed instead of installing over the network.
    server = await startSandboxAgent({ env: { SANDBOX_AGENT_REQUIRE_PREINSTALL: "1" } });
  });

  afterAll(async () => {
    for (const c of clients) await c.disconnect().catch(() => undefined);
    await server?.stop();
  });

  it("connecting to it is a NotFoundError of kind agent_not_installed", async () => {
    const c = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "claude", autoConnect: false });
    clients.push(c);
    const error = await notFound(c.connect({ timeoutMs: 20_000 }), "connect");
    expect(error.code).toBe("agent_not_installed");
    expect(error.status).toBe(404);
  });
});

describe("not found against the v2 contract server (extension routes)", () => {
  const shared = serverWithClients(v2Factory);

  it("filesystem over extensions and over HTTP: a missing path is a NotFoundError", async () => {
    const c = shared.client();
    await c.ready;
    const missing = join(tmpdir(), "not-found-spec-v2-missing", "file.txt");
    await notFound(c.fs.stat(missing), "fs.stat");
    await notFound(c.fs.listEntries(join(tmpdir(), "not-found-spec-v2-missing")), "fs.listEntries");
    await notFound(c.fs.readFile(missing), "fs.readFile");
  });

  it("sessions: a session the server does not know is a NotFoundError, and the connection stays up", async () => {
    const c = shared.client();
    await c.ready;
    // The server answers this 404 as it answers one for an unknown connection, naming the session.
    const error = await notFound(c.setMetadata("no-such-session", { title: "x" }), "setMetadata");
    expect(error.code).toBe("client_not_found");
    expect(error.problem?.sessionId).toBe("no-such-session");
    expect(c.state).toBe("connected");
    const { sessionId } = await c.newSession();
    await c.setMetadata(sessionId, { title: "known" });
  });
});
