// MCP and skills config, agents with their config options, and the connection list, against
// the real 0.4.2 server (none of these routes exists on the v2 contract server).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerConfig, McpServerConfig } from "../../../lib/sandbox/server/config/index.js";
import { SandboxAgentClient } from "../../../lib/sandbox/index.js";
import { NotFoundError, SandboxAgentHttpError } from "../../../lib/sandbox/errors.js";
import { startSandboxAgent, type SandboxAgentServer } from "../../support/sandbox-agent-server.js";
import { rejection } from "../../support/rejection.js";

describe("config, agents and connections against the real 0.4.2 server", () => {
  let server: SandboxAgentServer;
  let config: ServerConfig;
  // The client's own routes (no connection): the released server needs none for these.
  let agents: SandboxAgentClient;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "config-spec-"));
    server = await startSandboxAgent();
    agents = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", autoConnect: false });
    config = agents.config;
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("MCP config", () => {
    it("round-trips a local entry and keeps each name separate in the directory's mcp.json", async () => {
      const entry: McpServerConfig = {
        type: "local",
        command: "node",
        args: ["server.js"],
        env: { A: "1" },
        cwd: "/tmp",
        timeoutMs: 5000,
        enabled: true,
      };
      await config.setMcpConfig({ directory: dir, name: "fs" }, entry);
      expect(await config.getMcpConfig({ directory: dir, name: "fs" })).toEqual(entry);
      const url = "http://127.0.0.1:9/mcp";
      const web: McpServerConfig = { type: "remote", url, headers: { "x-a": "b" }, transport: "sse" };
      await config.setMcpConfig({ directory: dir, name: "web" }, web);
      const file = JSON.parse(readFileSync(join(dir, ".sandbox-agent/config/mcp.json"), "utf8")) as object;
      expect(Object.keys(file).sort()).toEqual(["fs", "web"]);
    });

    it("stores stdio as local and http as remote (the server's own aliases)", async () => {
      await config.setMcpConfig({ directory: dir, name: "s" }, { type: "stdio", command: "mcp-x" });
      const stored = await config.getMcpConfig({ directory: dir, name: "s" });
      expect(stored).toEqual({ type: "local", command: "mcp-x", args: [] });
      const url = "http://127.0.0.1:9/mcp";
      await config.setMcpConfig({ directory: dir, name: "h" }, { type: "http", url, bearerTokenEnvVar: "MCP_TOKEN" });
      const remote = await config.getMcpConfig({ directory: dir, name: "h" });
      expect(remote).toEqual({ type: "remote", url, bearerTokenEnvVar: "MCP_TOKEN" });
    });

    it("creates a directory that does not exist yet", async () => {
      const fresh = join(dir, "new", "deep");
      await config.setMcpConfig({ directory: fresh, name: "x" }, { type: "local", command: "x" });
      expect(existsSync(join(fresh, ".sandbox-agent/config/mcp.json"))).toBe(true);
    });

    it("a missing entry is a NotFoundError; delete is idempotent", async () => {
      const missing = await rejection(config.getMcpConfig({ directory: dir, name: "nope" }));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toBeInstanceOf(SandboxAgentHttpError);
      expect((missing as NotFoundError).status).toBe(404);
      expect((missing as NotFoundError).code).toBe("session_not_found");
      await config.deleteMcpConfig({ directory: dir, name: "fs" });
      await config.deleteMcpConfig({ directory: dir, name: "fs" });
      expect(await rejection(config.getMcpConfig({ directory: dir, name: "fs" }))).toBeInstanceOf(NotFoundError);
      expect(await config.getMcpConfig({ directory: dir, name: "web" })).toMatchObject({ type: "remote" });
    });

    it("a shape the server cannot read is an invalid_request error with the server's reason", async () => {
      const bogus = { type: "bogus" } as unknown as McpServerConfig;
      const variant = await rejection(config.setMcpConfig({ directory: dir, name: "b" }, bogus));
      expect(variant).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request", status: 422 });
      expect((variant as SandboxAgentHttpError).message).toContain("unknown variant `bogus`");
      const noCommand = { type: "local" } as McpServerConfig;
      const field = await rejection(config.setMcpConfig({ directory: dir, name: "b" }, noCommand));
      expect((field as SandboxAgentHttpError).message).toContain("missing field `command`");
      expect(await rejection(config.getMcpConfig({ directory: dir, name: "b" }))).toBeInstanceOf(NotFoundError);
    });
  });

  describe("skills config", () => {
    it("round-trips, 404s when missing, rejects a body without sources, deletes", async () => {
      const skills = {
        sources: [
          { type: "github", source: "owner/repo", skills: ["lint"], ref: "main", subpath: "skills" },
          { type: "local", source: "/opt/skills" },
        ],
      };
      await config.setSkillsConfig({ directory: dir, name: "s1" }, skills);
      expect(await config.getSkillsConfig({ directory: dir, name: "s1" })).toEqual(skills);
      const missing = await rejection(config.getSkillsConfig({ directory: dir, name: "nope" }));
      expect(missing).toBeInstanceOf(NotFoundError);
      expect((missing as NotFoundError).problem?.detail).toBe("session not found: skills:nope");
      const shape = await rejection(config.setSkillsConfig({ directory: dir, name: "s2" }, {} as { sources: [] }));
      expect(shape).toMatchObject({ name: "SandboxAgentHttpError", kind: "invalid-request" });
      expect((shape as SandboxAgentHttpError).message).toContain("missing field `sources`");
      await config.deleteSkillsConfig({ directory: dir, name: "s1" });
      expect(await rejection(config.getSkillsConfig({ directory: dir, name: "s1" }))).toBeInstanceOf(NotFoundError);
      await config.deleteSkillsConfig({ directory: dir, name: "s1" });
    });
  });

  describe("agents", () => {
    it("lists every agent; configOptions only when asked", async () => {
      const plain = await agents.listAgents();
      const ids = ["claude", "codex", "opencode", "amp", "pi", "cursor", "mock"];
      expect(plain.map((a) => a.id)).toEqual(expect.arrayContaining(ids));
      expect(plain.every((a) => a.configOptions === undefined)).toBe(true);
      const withConfig = await agents.listAgents({ config: true, noCache: true });
      expect(withConfig.every((a) => Array.isArray(a.configOptions) || typeof a.configError === "string")).toBe(true);
    });

    it("getAgent with config: the mock agent's model, mode and thought_level options", async () => {
      const mock = await agents.getAgent("mock", { config: true });
      expect(mock).toMatchObject({ id: "mock", installed: true, version: "builtin" });
      expect(mock.capabilities).toMatchObject({ permissions: true });
      expect(mock.configOptions?.map((o) => [o.id, o.category, o.currentValue])).toEqual([
        ["model", "model", "mock"],
        ["mode", "mode", "normal"],
        ["thought_level", "thought_level", "low"],
      ]);
      expect(mock.configOptions?.[2]?.options?.map((o) => o.value)).toEqual(["low", "medium", "high"]);
      expect((await agents.getAgent("mock")).configOptions).toBeUndefined();
    });

    it("an unknown agent is a 400 of kind invalid-request with code unsupported_agent", async () => {
      const error = await rejection(agents.getAgent("no-such-agent"));
      const fields = { status: 400, kind: "invalid-request", code: "unsupported_agent" };
      expect(error).toMatchObject({ name: "SandboxAgentHttpError", ...fields });
    });
  });

  describe("connections", () => {
    it("lists the server's live agent connections", async () => {
      expect(await agents.listConnections()).toEqual([]);
      const before = Date.now();
      const response = await fetch(`${server.baseUrl}/v1/acp/config-spec-conn?agent=mock`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }),
      });
      expect(response.status).toBe(200);
      await response.text();
      const connections = await agents.listConnections();
      expect(connections).toHaveLength(1);
      expect(connections[0]).toMatchObject({ serverId: "config-spec-conn", agent: "mock" });
      expect(connections[0]!.createdAtMs).toBeGreaterThanOrEqual(before - 1000);
    });
  });
});
