// The package as a consumer gets it: packed from a fresh copy of the tree (prepack builds it, so the
// repository's own dist/ is neither used nor touched), installed from the tarball into a temporary ESM project that has none of
// the optional peers, type-checked under moduleResolution bundler, node16 and nodenext, and run
// against the real sandbox-agent server on Node 20 (this runtime) and Node 22 (from the npm
// registry, installed once per machine). Entry points come from package.json "exports", so
// subpaths added later are covered without editing this file.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { packFreshCopy } from "./fresh-pack.js";
import { ensureInstalled } from "../support/interop-install.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { entriesOf, optionalPeers, reachOf, type Entry, type PackageJson } from "./package-graph.js";
import { repoRoot } from "./run-example.js";

const run = promisify(execFile);
const TIMEOUT = 240_000;
const RESOLUTIONS = { bundler: "esnext", node16: "node16", nodenext: "nodenext" } as const;
type Resolution = keyof typeof RESOLUTIONS;

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as PackageJson;
const entries = entriesOf(pkg);
const peers = optionalPeers(pkg);
const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");

const alias = (entry: Entry, i: number) => `entry${i}_${entry.subpath.replace(/\W/g, "_")}`;

/** Imports every given entry as a namespace and prints how many exports each has. */
function entriesSnippet(list: Entry[]): string {
  const imports = list.map((e, i) => `import * as ${alias(e, i)} from "${e.specifier}";`);
  const counts = list.map((e, i) => `  ${JSON.stringify(e.specifier)}: Object.keys(${alias(e, i)}).length,`);
  return `${imports.join("\n")}\nconsole.log(JSON.stringify({\n${counts.join("\n")}\n}));\n`;
}

/** One real turn through the published API, typed as a user would write it. */
const SMOKE = `import { SandboxAgentClient, SandboxAgentError, type SessionUpdate } from "${pkg.name}";
import { AcpHttpClient, RFD_PROFILE } from "${pkg.name}/acp-http";

// Read through globalThis so that the snippet needs no @types/node (a browser-only consumer has none).
type NodeProcess = { env: Record<string, string | undefined>; versions: { node: string } };
const { env, versions } = (globalThis as unknown as { process: NodeProcess }).process;
const baseUrl = env.SMOKE_SERVER_URL;
if (!baseUrl) throw new Error("SMOKE_SERVER_URL is not set");
const client = new SandboxAgentClient({ baseUrl, agent: "mock" });
await client.ready;
const { sessionId } = await client.newSession();
const kinds: SessionUpdate["sessionUpdate"][] = [];
let text = "";
const subscription = client.session(sessionId).events$.subscribe((event) => {
  if (event.kind !== "update") return;
  kinds.push(event.update.sessionUpdate);
  if (event.update.sessionUpdate === "agent_message_chunk") text += event.update.content.text ?? "";
});
const { stopReason } = await client.prompt(sessionId, "hello from a consumer");
subscription.unsubscribe();
await client.disconnect();
const protocolClient: typeof AcpHttpClient = AcpHttpClient;
console.log(JSON.stringify({
  node: versions.node,
  stopReason,
  text,
  kinds: [...new Set(kinds)],
  errorsShareABase: new SandboxAgentError("x", { kind: "protocol" }) instanceof Error,
  protocolClient: typeof protocolClient,
  rfdPath: typeof RFD_PROFILE.path,
}));
`;

function tsconfig(resolution: Resolution, files: string[], outDir?: string): object {
  return {
    compilerOptions: {
      target: "ES2022",
      module: RESOLUTIONS[resolution],
      moduleResolution: resolution,
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      types: [],
      strict: true,
      // The package's declarations (and those they pull in) are part of what is checked; the
      // compiler's own lib files are not, which is most of the time a full check would take.
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      ...(outDir ? { outDir, noEmit: false } : { noEmit: true }),
    },
    files,
  };
}

async function typecheck(app: string, name: string, resolution: Resolution, files: string[], outDir?: string) {
  const config = join(app, `tsconfig.${name}.${resolution}.json`);
  writeFileSync(config, JSON.stringify(tsconfig(resolution, files, outDir), null, 2));
  try {
    await run(process.execPath, [tsc, "-p", config], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
    return "";
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** Links a package of the repository's node_modules into the app (peers and types, as a user installs them). */
function link(app: string, name: string): void {
  const target = join(app, "node_modules", name);
  if (existsSync(target)) return;
  mkdirSync(join(target, ".."), { recursive: true });
  symlinkSync(join(repoRoot, "node_modules", name), target, "dir");
}

describe("the packed package in a consumer project", () => {
  const stage = mkdtempSync(join(tmpdir(), "sandbox-agent-rx-consumer-"));
  const app = join(stage, "app");
  let server: SandboxAgentServer | undefined;
  let node22 = "";
  const reach = new Map<string, ReturnType<typeof reachOf>>();
  const peerFree = () => entries.filter((e) => !reach.get(e.subpath)?.packages.some((p) => peers.includes(p)));

  beforeAll(async () => {
    // Packed as from a fresh clone: prepack builds, nothing built before is reused.
    const { tree, tarball } = await packFreshCopy(stage);
    for (const entry of entries) reach.set(entry.subpath, reachOf(tree, entry.file));

    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    // Dependencies and the rxjs peer come from the npm cache the repository's own install filled.
    const install = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"];
    await run("npm", [...install, tarball], {
      cwd: app,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(join(app, "smoke.ts"), SMOKE);
    writeFileSync(join(app, "peer-free.ts"), entriesSnippet(peerFree()));
    writeFileSync(join(app, "all-entries.ts"), entriesSnippet(entries));

    [server, node22] = await Promise.all([
      startSandboxAgent(),
      ensureInstalled("node22").then((dir) => join(dir, "node_modules/node/bin/node")),
    ]);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    rmSync(stage, { recursive: true, force: true });
  });

  it("has at least the two documented entry points, each with its declarations", () => {
    expect(entries.map((e) => e.subpath)).toEqual(expect.arrayContaining([".", "./acp-http"]));
    for (const entry of entries) {
      expect(entry.types).toBeDefined();
      expect(existsSync(join(app, "node_modules", pkg.name, entry.file))).toBe(true);
      expect(existsSync(join(app, "node_modules", pkg.name, entry.types ?? "missing"))).toBe(true);
    }
  });

  it("keeps optional peers and node: builtins out of every entry that is not for them", () => {
    expect(peers.sort()).toEqual(expect.arrayContaining(["better-sqlite3", "dockerode", "ws"]));
    const declared = new Set([...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.dependencies ?? {})]);
    for (const entry of entries) {
      const packages = reach.get(entry.subpath)?.packages ?? [];
      // Everything an entry imports is declared.
      const undeclared = packages.filter((p) => !p.startsWith("node:") && !declared.has(p));
      expect({ subpath: entry.subpath, undeclared }).toEqual({ subpath: entry.subpath, undeclared: [] });
    }
    // The root and the protocol client are what browsers bundle: no optional peer, no Node builtin.
    for (const subpath of [".", "./acp-http"]) {
      const nodeOnly = reach.get(subpath)?.packages.filter((p) => peers.includes(p) || p.startsWith("node:"));
      expect({ subpath, nodeOnly }).toEqual({ subpath, nodeOnly: [] });
    }
    // So is any other entry that needs no optional peer, unless its export has a "node" condition.
    for (const { subpath } of peerFree().filter((e) => !e.nodeOnly)) {
      const builtins = reach.get(subpath)?.packages.filter((p) => p.startsWith("node:"));
      expect({ subpath, builtins }).toEqual({ subpath, builtins: [] });
    }
    // No optional peer was installed alongside the package.
    const installed = peers.filter((peer) => existsSync(join(app, "node_modules", peer)));
    expect(installed).toEqual([]);
  });

  const resolutions = Object.keys(RESOLUTIONS) as Resolution[];
  it.each(resolutions)("type-checks under moduleResolution %s without the optional peers", async (resolution) => {
    const outDir = resolution === "nodenext" ? join(app, "out") : undefined;
    expect(await typecheck(app, "bare", resolution, ["smoke.ts", "peer-free.ts"], outDir)).toBe("");
  }, TIMEOUT);

  it("loads every entry that needs no optional peer, without them (the nodenext check emitted it)", async () => {
    const { stdout } = await run(process.execPath, [join(app, "out/peer-free.js")], { cwd: app });
    const counts = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual(peerFree().map((e) => e.specifier).sort());
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(0);
  }, TIMEOUT);

  it.each([
    ["20", () => process.execPath],
    ["22 (from the npm registry)", () => node22],
  ])("runs a real turn against the real server on Node %s", async (major, nodeBinary) => {
    const { stdout } = await run(nodeBinary(), [join(app, "out/smoke.js")], {
      cwd: app,
      env: { PATH: process.env.PATH ?? "", SMOKE_SERVER_URL: server?.baseUrl ?? "" },
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(String(result.node).split(".")[0]).toBe(major.slice(0, 2));
    expect(result).toMatchObject({
      stopReason: "end_turn",
      text: "Hello, world",
      kinds: ["agent_message_chunk"],
      errorsShareABase: true,
      protocolClient: "function",
      rfdPath: "string",
    });
  }, TIMEOUT);

  describe("with the optional peers installed", () => {
    beforeAll(() => {
      for (const peer of peers) {
        link(app, peer);
        if (existsSync(join(repoRoot, "node_modules/@types", peer))) link(app, `@types/${peer}`);
      }
      // The peers' declarations reference Node's.
      link(app, "@types/node");
    });

    it.each(resolutions)("type-checks every entry under %s", async (resolution) => {
      const outDir = resolution === "nodenext" ? join(app, "out-all") : undefined;
      expect(await typecheck(app, "peers", resolution, ["smoke.ts", "all-entries.ts"], outDir)).toBe("");
    }, TIMEOUT);

    it("loads every entry (after the nodenext check above emitted the program)", async () => {
      const { stdout } = await run(process.execPath, [join(app, "out-all/all-entries.js")], { cwd: app });
      expect(Object.keys(JSON.parse(stdout) as object).sort()).toEqual(entries.map((e) => e.specifier).sort());
    }, TIMEOUT);
  });
});
