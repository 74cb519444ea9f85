// The protocol layer against the stable schema the official SDK ships (not against memory): every
// method, notification, session update kind and capability in it is covered by the layer, or listed
// in NOT_SUPPORTED with its reason. A new SDK version's additions fail here until one or the other.
import * as v from "valibot";
import { AcpHttpClient } from "../../../lib/acp-http/index.js";
import { AgentCapabilitiesSchema, SESSION_UPDATE_SCHEMAS } from "../../../lib/acp-http/acp-types.js";
import { AGENT_REQUEST_METHODS } from "../../../lib/acp-http/agent-requests.js";
import * as acpTypes from "../../../lib/acp-http/acp-types.js";
import { AGENT_NOTIFICATIONS, CLIENT_METHODS, NOT_SUPPORTED } from "../../../lib/acp-http/coverage.js";
import { acpSchema, interopTableRows, sdkVersion, type SchemaDef } from "../../support/acp-schema.js";
import { bodyOf, rpcResult } from "../../support/fake-acp-server.js";
import { createHarness, disconnectAll } from "./client-harness.js";

afterEach(disconnectAll);

const { defs, methods, refOf } = acpSchema("v1");
type Def = SchemaDef;

/** A capability object's fields, one level down where a field is itself an object of capabilities. */
function capabilityPaths(root: string, def: Def): string[] {
  const paths: string[] = [];
  for (const [key, field] of Object.entries(def.properties ?? {})) {
    if (key === "_meta") continue;
    paths.push(`${root}.${key}`);
    for (const inner of Object.keys(refOf(field)?.properties ?? {})) {
      if (inner !== "_meta") paths.push(`${root}.${key}.${inner}`);
    }
  }
  return paths;
}

const uncovered = (names: Iterable<string>, covered: (name: string) => boolean) =>
  [...names].filter((name) => !covered(name) && !(name in NOT_SUPPORTED)).sort();

describe(`the protocol layer covers the stable schema of @agentclientprotocol/sdk ${sdkVersion}`, () => {
  const { toAgent, toClient, notificationsToClient } = methods();

  it("reads a schema that has methods, update kinds and capabilities (the reading itself works)", () => {
    expect(sdkVersion).toBe("2.4.0");
    expect(toAgent.has("session/prompt")).toBe(true);
    expect(toClient.has("session/request_permission")).toBe(true);
    expect(notificationsToClient.has("session/update")).toBe(true);
    expect(capabilityPaths("agentCapabilities", defs.AgentCapabilities!)).toContain(
      "agentCapabilities.sessionCapabilities.delete",
    );
  });

  it("sends every client-to-agent method with a method of AcpHttpClient", () => {
    expect(uncovered(toAgent, (method) => method in CLIENT_METHODS)).toEqual([]);
    const prototype = AcpHttpClient.prototype as unknown as Record<string, unknown>;
    for (const [method, name] of Object.entries(CLIENT_METHODS)) {
      expect([method, typeof prototype[name]]).toEqual([method, "function"]);
    }
  });

  it("answers every agent-to-client request through a handler", () => {
    expect(uncovered(toClient, (method) => AGENT_REQUEST_METHODS.includes(method))).toEqual([]);
  });

  it("types every agent-to-client notification", () => {
    expect(uncovered(notificationsToClient, (method) => method in AGENT_NOTIFICATIONS)).toEqual([]);
    const exported = acpTypes as Record<string, unknown>;
    expect(typeof exported.readSessionUpdate).toBe("function");
    expect(exported.CompleteElicitationParamsSchema).toBeDefined();
  });

  it("types every session update kind, checking its required fields", () => {
    const union = defs.SessionUpdate!.oneOf ?? defs.SessionUpdate!.anyOf ?? [];
    const kinds = union.map((member) => member.properties?.sessionUpdate?.const).filter((k) => k !== undefined);
    expect(kinds.length).toBeGreaterThan(10);
    expect(uncovered(kinds, (kind) => kind in SESSION_UPDATE_SCHEMAS)).toEqual([]);
    // And each typed kind rejects an update without the fields its schema requires.
    for (const member of union) {
      const kind = member.properties?.sessionUpdate?.const as keyof typeof SESSION_UPDATE_SCHEMAS;
      const required = (refOf(member) as { required?: string[] } | undefined)?.required ?? [];
      if (required.length === 0) continue;
      expect([kind, v.safeParse(SESSION_UPDATE_SCHEMAS[kind], { sessionUpdate: kind }).success]).toEqual([kind, false]);
    }
  });

  it("reads every capability the agent may advertise", () => {
    const read = (path: string): boolean => {
      let schemaNode: unknown = AgentCapabilitiesSchema;
      for (const key of path.split(".").slice(1)) {
        let node = schemaNode as { entries?: Record<string, unknown>; wrapped?: unknown };
        while (!node.entries && node.wrapped) node = node.wrapped as typeof node;
        if (!node.entries || !(key in node.entries)) return false;
        schemaNode = node.entries[key];
      }
      return true;
    };
    expect(uncovered(capabilityPaths("agentCapabilities", defs.AgentCapabilities!), read)).toEqual([]);
  });

  it("advertises every client capability its handlers make possible", async () => {
    const h = createHarness({
      handlers: {
        readTextFile: () => ({ content: "" }),
        writeTextFile: () => ({}),
        createTerminal: () => ({ terminalId: "t1" }),
        createElicitation: () => ({ action: "decline" }),
      },
    });
    h.server.onPost = (request) => rpcResult(bodyOf(request).id, { protocolVersion: 1 });
    await h.client.initialize();
    const sent = (bodyOf(await h.server.request("POST")).params as { clientCapabilities: Record<string, unknown> })
      .clientCapabilities;
    const has = (path: string): boolean => {
      let node: unknown = { clientCapabilities: sent };
      for (const key of path.split(".")) {
        if (node === null || typeof node !== "object" || !(key in node)) return false;
        node = (node as Record<string, unknown>)[key];
      }
      return node !== false && node !== undefined;
    };
    const paths = capabilityPaths("clientCapabilities", defs.ClientCapabilities!);
    // A listed capability hides its fields too: they are about the same thing.
    const listedParent = (path: string) => path.split(".").slice(0, 2).join(".") in NOT_SUPPORTED;
    expect(uncovered(paths.filter((path) => !listedParent(path)), has)).toEqual([]);
  });

  it("has a row for every stable method in the protocol table of docs/acp-sdk-interop.md", () => {
    const rows = interopTableRows();
    const methods = [...toAgent, ...toClient, ...notificationsToClient];
    expect(methods.filter((method) => !rows.has(method)).sort()).toEqual([]);
  });

  it("lists as not supported only what the schema has, each with a reason", () => {
    const everything = new Set<string>([
      ...toAgent,
      ...toClient,
      ...notificationsToClient,
      ...capabilityPaths("agentCapabilities", defs.AgentCapabilities!),
      ...capabilityPaths("clientCapabilities", defs.ClientCapabilities!),
    ]);
    for (const [name, reason] of Object.entries(NOT_SUPPORTED)) {
      expect([name, everything.has(name)]).toEqual([name, true]);
      expect(reason.length).toBeGreaterThan(40);
    }
  });
});
