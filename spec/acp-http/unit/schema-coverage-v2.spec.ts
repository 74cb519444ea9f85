// The protocol layer against the ACP v2 draft the official SDK ships (`schema/v2/schema.json`, its
// experimental `experimental/v2` entry), not against memory: every method, notification, session
// update kind and capability of the draft is covered by the v2 profile, or listed in V2_NOT_SUPPORTED
// with its reason. A newer draft's additions fail here until one or the other.
import * as v from "valibot";
import { AcpHttpClient } from "../../../lib/acp-http/index.js";
import { V2InitializeResultSchema, V2_SESSION_UPDATE_SCHEMAS } from "../../../lib/acp-http/acp-types.js";
import { AGENT_REQUEST_METHODS } from "../../../lib/acp-http/agent-requests.js";
import { AGENT_NOTIFICATIONS, V2_NOT_SUPPORTED } from "../../../lib/acp-http/coverage.js";
import { PROTOCOL_PROFILES } from "../../../lib/acp-http/protocol-versions.js";
import { acpSchema, interopTableRows, sdkVersion, type SchemaDef } from "../../support/acp-schema.js";
import { bodyOf, rpcResult } from "../../support/fake-acp-server.js";
import { createHarness, disconnectAll } from "./client-harness.js";

afterEach(disconnectAll);

const { defs, methods, refOf } = acpSchema("v2");
type Def = SchemaDef;
const profile = PROTOCOL_PROFILES[2];

/** Every capability path under `def`, at any depth (through `$ref`s), `_meta` left out. */
function capabilityPaths(root: string, def: Def): string[] {
  const paths: string[] = [];
  for (const [key, field] of Object.entries(def.properties ?? {})) {
    if (key === "_meta") continue;
    paths.push(`${root}.${key}`);
    const inner = refOf(field);
    if (inner) paths.push(...capabilityPaths(`${root}.${key}`, inner));
  }
  return paths;
}

/**
 * An answer that says yes to every capability under `def`, each in the draft's own type: an object
 * (`{}` when it has nothing but `_meta`), a boolean `true`.
 */
function everythingOn(def: Def): Record<string, unknown> {
  const on: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(def.properties ?? {})) {
    if (key === "_meta") continue;
    const inner = refOf(field);
    if (inner) on[key] = everythingOn(inner);
    else if ([field.type].flat().includes("boolean")) on[key] = true;
  }
  return on;
}

const uncovered = (names: Iterable<string>, covered: (name: string) => boolean) =>
  [...names].filter((name) => !covered(name) && !(name in V2_NOT_SUPPORTED)).sort();

describe(`the protocol layer covers the ACP v2 draft of @agentclientprotocol/sdk ${sdkVersion}`, () => {
  const { toAgent, toClient, notificationsToClient } = methods();
  const sent = new Set(Object.values(profile.methods));

  it("reads a draft that has the v2 methods and update kinds (the reading itself works)", () => {
    expect(sdkVersion).toBe("2.4.0");
    expect(toAgent.has("auth/login")).toBe(true);
    expect(toAgent.has("session/load")).toBe(false);
    expect(notificationsToClient.has("session/update")).toBe(true);
  });

  it("sends every client-to-agent method of the draft with a method of AcpHttpClient (the v2 profile)", () => {
    // `$/cancel_request` goes out for an aborted request (option `cancelRequests`), as in v1.
    expect(uncovered(toAgent, (method) => sent.has(method) || method === "$/cancel_request")).toEqual([]);
    const prototype = AcpHttpClient.prototype as unknown as Record<string, unknown>;
    for (const name of Object.keys(profile.methods)) expect([name, typeof prototype[name]]).toEqual([name, "function"]);
  });

  it("sends no method in v2 that the draft does not have", () => {
    expect([...sent].filter((method) => !toAgent.has(method)).sort()).toEqual([]);
  });

  it("answers every agent-to-client request through a handler, and types every notification", () => {
    expect(uncovered(toClient, (method) => AGENT_REQUEST_METHODS.includes(method))).toEqual([]);
    expect(uncovered(notificationsToClient, (method) => method in AGENT_NOTIFICATIONS)).toEqual([]);
  });

  it("types every session update kind of the draft, checking its required fields", () => {
    const union = defs.SessionUpdate!.anyOf ?? defs.SessionUpdate!.oneOf ?? [];
    const kinds = union.map((member) => member.properties?.sessionUpdate?.const).filter((k) => k !== undefined);
    expect(kinds).toContain("state_update");
    expect(uncovered(kinds, (kind) => kind in V2_SESSION_UPDATE_SCHEMAS)).toEqual([]);
    for (const member of union) {
      const kind = member.properties?.sessionUpdate?.const as keyof typeof V2_SESSION_UPDATE_SCHEMAS | undefined;
      if (!kind) continue;
      const required = refOf(member)?.required ?? [];
      if (required.length === 0) continue;
      const bare = v.safeParse(V2_SESSION_UPDATE_SCHEMAS[kind], { sessionUpdate: kind }).success;
      expect([kind, bare]).toEqual([kind, false]);
    }
  });

  it("reads every capability the agent may advertise in v2", () => {
    const read = (path: string): boolean => {
      let schemaNode: unknown = V2InitializeResultSchema;
      for (const key of ["capabilities", ...path.split(".").slice(1)]) {
        let node = schemaNode as { entries?: Record<string, unknown>; wrapped?: unknown };
        while (!node.entries && node.wrapped) node = node.wrapped as typeof node;
        if (!node.entries || !(key in node.entries)) return false;
        schemaNode = node.entries[key];
      }
      return true;
    };
    expect(uncovered(capabilityPaths("agentCapabilities", defs.AgentCapabilities!), read)).toEqual([]);
  });

  it("reads every capability the agent may advertise in v2 in the draft's type, and exposes it", async () => {
    const capabilities = everythingOn(defs.AgentCapabilities!);
    // The reading itself works: objects at the second level and below (`session.prompt.image`).
    expect(capabilities).toMatchObject({ session: { prompt: { image: {} }, mcp: { stdio: {}, http: {} } } });
    const h = createHarness({ protocolVersion: 2 });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 2, capabilities });
    const result = await h.client.initialize();
    const at = (root: unknown, path: string) =>
      path
        .split(".")
        .slice(1)
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], root);
    const paths = capabilityPaths("agentCapabilities", defs.AgentCapabilities!);
    const readBack = (root: unknown) => paths.map((path) => [path, at(root, path)]);
    const expected = paths.map((path) => [path, at(capabilities, path)]);
    expect(readBack(result.capabilities)).toEqual(expected);
    expect(readBack(h.client.v2AgentCapabilities)).toEqual(expected);
  });

  it("advertises every v2 client capability its handlers make possible", async () => {
    const h = createHarness({ protocolVersion: 2, handlers: { createElicitation: () => ({ action: "decline" }) } });
    const answer = { protocolVersion: 2, info: { name: "a", version: "1" } };
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, answer);
    await h.client.initialize();
    const capabilities = (bodyOf(await h.server.request("POST")).params as { capabilities: Record<string, unknown> })
      .capabilities;
    const has = (path: string): boolean => {
      let node: unknown = { clientCapabilities: capabilities };
      for (const key of path.split(".")) {
        if (node === null || typeof node !== "object" || !(key in node)) return false;
        node = (node as Record<string, unknown>)[key];
      }
      return node !== false && node !== undefined;
    };
    const listedParent = (path: string) => path.split(".").slice(0, 2).join(".") in V2_NOT_SUPPORTED;
    const paths = capabilityPaths("clientCapabilities", defs.ClientCapabilities!);
    expect(uncovered(paths.filter((path) => !listedParent(path)), has)).toEqual([]);
  });

  it("has a row for every v2 method in docs/acp-sdk-interop.md", () => {
    const rows = interopTableRows();
    const all = [...toAgent, ...toClient, ...notificationsToClient];
    expect(all.filter((method) => !rows.has(method)).sort()).toEqual([]);
  });

  it("lists as not supported only what the draft has, each with a reason", () => {
    const everything = new Set<string>([
      ...toAgent,
      ...toClient,
      ...notificationsToClient,
      ...capabilityPaths("agentCapabilities", defs.AgentCapabilities!),
      ...capabilityPaths("clientCapabilities", defs.ClientCapabilities!),
    ]);
    for (const [name, reason] of Object.entries(V2_NOT_SUPPORTED)) {
      expect([name, everything.has(name)]).toEqual([name, true]);
      expect(reason.length).toBeGreaterThan(40);
    }
  });
});
