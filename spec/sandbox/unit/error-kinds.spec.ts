// The sandbox layer's error kinds: one closed set in kebab-case (like the protocol layer's and the
// events'), so a `switch` over `kind` is checked for exhaustiveness; an HTTP answer's kind is the
// client's reading of it, and the server's own problem code stays data on the error (`code`).
import {
  DesktopDependenciesMissingError,
  SandboxAgentError,
  SandboxAgentHttpError,
  StoreError,
  type SandboxErrorKind,
} from "../../../lib/sandbox/index.js";
import { refineHttpError } from "../../../lib/sandbox/error-mapping.js";
import type { StoreErrorKind } from "../../../lib/sandbox/errors.js";

// A record over the union: the compiler rejects a missing kind and an extra one, so this list is
// the set (an open union, `string & {}`, would accept any key and check nothing).
const EVERY_KIND: Record<SandboxErrorKind, true> = {
  "not-connected": true,
  "already-connected": true,
  "no-agent": true,
  "connection-lost": true,
  "agent-exited": true,
  agent: true,
  timeout: true,
  aborted: true,
  protocol: true,
  network: true,
  "invalid-header": true,
  "token-failed": true,
  "websocket-unavailable": true,
  unsupported: true,
  cors: true,
  http: true,
  unauthorized: true,
  forbidden: true,
  "not-found": true,
  conflict: true,
  "invalid-request": true,
  "token-missing": true,
  "path-not-found": true,
  "agent-start-failed": true,
  "process-not-found": true,
  "process-running": true,
  "process-not-running": true,
  "not-a-terminal": true,
  "spawn-failed": true,
  "desktop-runtime-inactive": true,
  "desktop-streamer-missing": true,
  "desktop-dependencies-missing": true,
  "body-too-large": true,
  terminal: true,
  "terminal-server": true,
  "log-stream": true,
  "sandbox-start": true,
  "sandbox-provider": true,
  "sandbox-not-found": true,
  store: true,
  "invalid-cursor": true,
  "invalid-record": true,
  "store-write": true,
  "store-backlog": true,
  "lease-lost": true,
  "lease-claimant": true,
};

const STORE_KINDS: Record<StoreErrorKind, true> = {
  store: true,
  "invalid-cursor": true,
  "invalid-record": true,
  "store-write": true,
  "store-backlog": true,
  "lease-lost": true,
  "lease-claimant": true,
};

/** A `switch` with no default: it compiles only while every kind has its case (the closed union's point). */
function family(kind: SandboxErrorKind): string {
  switch (kind) {
    case "not-connected":
    case "already-connected":
    case "no-agent":
    case "connection-lost":
    case "agent-exited":
    case "agent":
    case "timeout":
    case "aborted":
    case "protocol":
    case "network":
    case "invalid-header":
    case "token-failed":
    case "websocket-unavailable":
    case "unsupported":
    case "cors":
      return "call";
    case "http":
    case "unauthorized":
    case "forbidden":
    case "not-found":
    case "conflict":
    case "invalid-request":
    case "token-missing":
    case "path-not-found":
    case "agent-start-failed":
    case "process-not-found":
    case "process-running":
    case "process-not-running":
    case "not-a-terminal":
    case "spawn-failed":
    case "desktop-runtime-inactive":
    case "desktop-streamer-missing":
    case "desktop-dependencies-missing":
    case "body-too-large":
      return "http";
    case "terminal":
    case "terminal-server":
    case "log-stream":
    case "sandbox-start":
    case "sandbox-provider":
    case "sandbox-not-found":
      return "stream or sandbox";
    case "store":
    case "invalid-cursor":
    case "invalid-record":
    case "store-write":
    case "store-backlog":
    case "lease-lost":
    case "lease-claimant":
      return "store";
  }
}

const problem = (code: string, status: number) => ({ type: `urn:sandbox-agent:error:${code}`, status });

describe("the sandbox layer's error kinds", () => {
  it("are one closed set, every member in kebab-case, the store's kinds among them", () => {
    const kinds = Object.keys(EVERY_KIND);
    expect(kinds.filter((kind) => !/^[a-z]+(-[a-z]+)*$/.test(kind))).toEqual([]);
    expect(Object.keys(STORE_KINDS).filter((kind) => !(kind in EVERY_KIND))).toEqual([]);
    expect(new Set(kinds.map((kind) => family(kind as SandboxErrorKind)))).toEqual(
      new Set(["call", "http", "stream or sandbox", "store"]),
    );
  });

  it("give the base a kind always: the constructor takes one, there is no default outside the set", () => {
    const error = new SandboxAgentError("x", { kind: "protocol" });
    expect(error.kind).toBe("protocol");
    expect(new StoreError("y").kind).toBe("store");
  });

  it.each([
    [401, "token_invalid", "unauthorized"],
    [403, "permission_denied", "forbidden"],
    [404, "session_not_found", "not-found"],
    [409, "conflict", "conflict"],
    [400, "unsupported_agent", "invalid-request"],
    [415, "unsupported_media_type", "invalid-request"],
    [422, "invalid_request", "invalid-request"],
    [500, "install_failed", "http"],
  ] as const)("read an HTTP %i with the server's %s as kind %s, the server's code kept", (status, code, kind) => {
    const error = new SandboxAgentHttpError("call", status, problem(code, status), undefined);
    expect(error).toMatchObject({ kind, code, status });
    expect(EVERY_KIND[error.kind]).toBe(true);
  });

  it("read the desktop's own codes (at the problem's top level) as the client's desktop kinds", () => {
    const problem = { code: "desktop_runtime_inactive" };
    const inactive = new SandboxAgentHttpError("desktop.displayInfo", 409, problem, undefined);
    expect(inactive).toMatchObject({ kind: "desktop-runtime-inactive", code: "desktop_runtime_inactive" });
    const missing = refineHttpError(
      new SandboxAgentHttpError("desktop.start", 503, { code: "desktop_dependencies_missing" }, undefined),
    );
    expect(missing).toBeInstanceOf(DesktopDependenciesMissingError);
    expect(missing).toMatchObject({ kind: "desktop-dependencies-missing", code: "desktop_dependencies_missing" });
  });

  it("have no code without a problem: the status alone gives the kind", () => {
    const gone = new SandboxAgentHttpError("call", 404, undefined, "gone");
    expect(gone).toMatchObject({ kind: "not-found", code: undefined });
    const bad = new SandboxAgentHttpError("call", 502, undefined, undefined);
    expect(bad).toMatchObject({ kind: "http", code: undefined });
  });
});
