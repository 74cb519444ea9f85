// The client's options are checked when it is made: a wrong one is a TypeError that names the
// option and what it takes, before anything is sent (JavaScript callers get no compiler to help).
import { SandboxAgentClient, memoryStore, type SandboxAgentClientOptions } from "../../../lib/sandbox/index.js";
import { CLIENT_DEFAULTS, resolveClientOptions } from "../../../lib/sandbox/client-options.js";

/** A fetch that records that it was called and answers nothing useful. */
function spyFetch(): { fetch: typeof globalThis.fetch; calls: number } {
  const spy = {
    calls: 0,
    fetch: (async () => {
      spy.calls += 1;
      return new Response("{}", { status: 500 });
    }) as typeof globalThis.fetch,
  };
  return spy;
}

/** The TypeError the constructor throws for `options` (autoConnect off unless given), or a failure. */
function constructionError(options: unknown): TypeError {
  const withDefaults = typeof options === "object" && options !== null ? { autoConnect: false, ...options } : options;
  try {
    new SandboxAgentClient(withDefaults as SandboxAgentClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
  throw new Error(`expected the constructor to refuse ${JSON.stringify(options)}`);
}

const BASE = "http://127.0.0.1:2468";

describe("SandboxAgentClient options are checked at construction", () => {
  it("no options at all: a TypeError saying options are needed", () => {
    expect(constructionError(undefined).message).toMatch(/SandboxAgentClient: options must be an object/);
  });

  it("a missing baseUrl is a TypeError naming baseUrl and what it takes, not one from deep inside", () => {
    const error = constructionError({ agent: "mock" });
    expect(error.message).toContain("option baseUrl must be the server's http(s) URL");
    expect(error.message).toContain("got undefined");
    expect(error.message).not.toContain("replace");
  });

  it.each([
    ["htp://127.0.0.1:2468", "a scheme typo"],
    ["127.0.0.1:2468", "no scheme"],
    ["localhost:2468", "a host taken for a scheme"],
    ["ftp://127.0.0.1:2468", "another scheme"],
    ["", "empty"],
    ["http://127.0.0.1:2468/?token=x", "a query"],
  ])("baseUrl %j (%s) is refused with the value shown", (baseUrl) => {
    const error = constructionError({ baseUrl });
    expect(error.message).toContain("option baseUrl must be the server's http(s) URL");
    expect(error.message).toContain(JSON.stringify(baseUrl));
  });

  it("a baseUrl with user:password is refused without quoting the password", () => {
    const error = constructionError({ baseUrl: "http://me:s3cret@127.0.0.1:2468" });
    expect(error.message).toContain("option baseUrl must be the server's http(s) URL");
    expect(error.message).toContain("token or headers");
    expect(error.message).not.toContain("s3cret");
  });

  it("a refused option sends nothing, even with auto-connect on", () => {
    const spy = spyFetch();
    expect(() => new SandboxAgentClient({ baseUrl: "htp://127.0.0.1:2468", fetch: spy.fetch })).toThrow(TypeError);
    expect(spy.calls).toBe(0);
  });

  it("a token of the wrong type is named with its type only, never its value", () => {
    const error = constructionError({ baseUrl: BASE, token: 123456789 });
    expect(error.message).toContain("option token must be a string or a function returning one (got a number)");
    expect(error.message).not.toContain("123456789");
  });

  it.each<[string, Record<string, unknown>]>([
    ["agent", { agent: "" }],
    ["headers", { headers: { "x-team": 4 } }],
    ["fetch", { fetch: "fetch" }],
    ["WebSocket", { WebSocket: {} }],
    ["autoConnect", { autoConnect: "yes" }],
    ["serverApi", { serverApi: "v3" }],
    ["serverId", { serverId: "" }],
    ["cwd", { cwd: 7 }],
    ["protocolVersion", { protocolVersion: 3 }],
    ["protocolVersion", { protocolVersion: "2" }],
    ["onPermissionRequest", { onPermissionRequest: "allow" }],
    ["onReadTextFile", { onReadTextFile: true }],
    ["onInput", { onInput: "decline" }],
    ["debug", { debug: { log: () => undefined } }],
    ["store", { store: {} }],
    ["reconnect", { reconnect: true }],
    ["reconnect.maxRetries", { reconnect: { maxRetries: -1 } }],
    ["reconnect.maxRetries", { reconnect: { maxRetries: 2.5 } }],
    ["reconnect.initialDelayMs", { reconnect: { initialDelayMs: Number.NaN } }],
    ["reconnect.maxDelayMs", { reconnect: { maxDelayMs: "10s" } }],
    ["reconnect.stallTimeoutMs", { reconnect: { stallTimeoutMs: -1 } }],
    ["reconnect.factor", { reconnect: { factor: 0.5 } }],
    ["reconnect.jitter", { reconnect: { jitter: 2 } }],
    ["waitForServer", { waitForServer: "always" }],
    ["waitForServer.attemptTimeoutMs", { waitForServer: { attemptTimeoutMs: 0 } }],
    ["waitForServer.initialDelayMs", { waitForServer: { initialDelayMs: -100 } }],
    ["replay.maxChars", { replay: { maxChars: -5 } }],
    ["shows", { shows: true }],
    ["shows", { shows: { notices: "yes" } }],
    ["shows", { shows: { colours: true } }],
  ])("option %s: a wrong value is a TypeError naming it", (name, options) => {
    const error = constructionError({ baseUrl: BASE, ...options });
    expect(error.message).toContain(`option ${name} must be `);
  });

  it("takes every option in its documented forms", () => {
    const options: SandboxAgentClientOptions = {
      baseUrl: "https://sandbox.example.test/prefix/",
      agent: "claude",
      token: () => "t",
      headers: { "x-team": "h4" },
      fetch: spyFetch().fetch,
      autoConnect: false,
      waitForServer: { initialDelayMs: 50, maxDelayMs: 1000, attemptTimeoutMs: 2000 },
      serverApi: "v1",
      serverId: "mine",
      reconnect: { maxRetries: Infinity, initialDelayMs: 0, factor: 1, jitter: 0, stallTimeoutMs: Infinity },
      cwd: "/work",
      protocolVersion: 2,
      onPermissionRequest: () => ({ outcome: "cancelled" }),
      onReadTextFile: () => "",
      onWriteTextFile: () => undefined,
      onInput: () => ({ action: "decline" }),
      debug: { debug: () => undefined, warn: () => undefined },
      store: memoryStore(),
      replay: { maxChars: 4000, maxEvents: 100 },
      shows: { compaction: true, notices: false, booleanOptions: true },
    };
    expect(() => new SandboxAgentClient(options)).not.toThrow();
    expect(() => new SandboxAgentClient({ baseUrl: BASE, token: "t", reconnect: false, autoConnect: false })).not.toThrow();
  });

  it("reads headers once: the caller's object changed afterwards is not what requests carry", () => {
    const headers: Record<string, string> = { "x-team": "h4" };
    const settings = resolveClientOptions({ baseUrl: BASE, headers });
    headers["x-team"] = "changed";
    expect(settings.headers).toEqual({ "x-team": "h4" });
  });

  it("SandboxAgentClient.start checks the client options before it creates a sandbox", async () => {
    let created = 0;
    const provider = {
      name: "counting",
      create: async () => {
        created += 1;
        return { id: "s1", baseUrl: BASE };
      },
      destroy: async () => undefined,
    };
    const started = SandboxAgentClient.start({ sandbox: provider, agent: "mock", token: 42 as unknown as string });
    await expect(started).rejects.toThrow(/option token must be a string or a function/);
    expect(created).toBe(0);
  });

  it("fills in the defaults in one place: auto-connect on, cwd /, a memory store, showing everything, v1", () => {
    const settings = resolveClientOptions({ baseUrl: BASE });
    expect(settings).toMatchObject({ baseUrl: BASE, autoConnect: CLIENT_DEFAULTS.autoConnect, cwd: CLIENT_DEFAULTS.cwd });
    const shows = { compaction: true, notices: true, booleanOptions: true };
    expect(CLIENT_DEFAULTS).toEqual({ autoConnect: true, cwd: "/", shows, protocolVersion: 1 });
    expect(settings.shows).toEqual(shows);
    expect(settings.protocolVersion).toBe(1);
    // A part left out keeps its default.
    const noNotices = resolveClientOptions({ baseUrl: BASE, shows: { notices: false } });
    expect(noNotices.shows).toEqual({ ...shows, notices: false });
    expect(typeof settings.store.insertEvent).toBe("function");
    // Given values are kept.
    expect(resolveClientOptions({ baseUrl: BASE, autoConnect: false, cwd: "/w" })).toMatchObject({ autoConnect: false, cwd: "/w" });
  });
});
