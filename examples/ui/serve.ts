// `npm run ui`: a local sandbox-agent server (the pinned @sandbox-agent/cli, the embedded `local()`
// default, a random token) with the demo agent as `mock`, allowing the page's origin, and the Vite
// dev server for the page. Prints the address to open; Ctrl-C stops both. Like the app in src/, it
// imports the package by name (in this repository tsx maps the names to lib/ through tsconfig.json).
//
//   npm run ui [-- --port 5173]
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { createServer } from "vite";
import type { AddressInfo } from "node:net";
import { demoAgent, local } from "sandbox-agent-rx/local";
import { seedWorkspace } from "./workspace.js";

const { values } = parseArgs({ options: { port: { type: "string" } } });

// The page first (on the port asked for, or any free one), so that the server can allow its origin.
const vite = await createServer({
  configFile: fileURLToPath(new URL("./vite.config.ts", import.meta.url)),
  server: { port: values.port ? Number(values.port) : 0, host: "127.0.0.1", strictPort: true },
});
await vite.listen();
const { port } = vite.httpServer!.address() as AddressInfo;
const origin = `http://127.0.0.1:${port}`;

const provider = local({
  mockAgent: demoAgent,
  cors: {
    origins: [origin],
    methods: ["GET", "POST", "DELETE", "OPTIONS"],
    headers: ["content-type", "accept", "authorization", "last-event-id"],
  },
});
const sandbox = await provider.create();
const details = provider.details(sandbox.id);
if (details) seedWorkspace(details.home);

const query = `?server=${encodeURIComponent(sandbox.baseUrl)}&agent=mock`;
// The token goes in the fragment: browsers never send it, so no server log records it.
const fragment = sandbox.token ? `#token=${encodeURIComponent(sandbox.token)}` : "";
console.log(`sandbox-agent ${sandbox.baseUrl} (demo agent as "mock", home ${details?.home ?? "?"})`);
console.log(`open ${origin}/${query}${fragment}`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await vite.close();
  await provider.destroy(sandbox.id);
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
