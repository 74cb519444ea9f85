// A script that does nothing but connect and disconnect while its initialize is out, then returns:
// the process must end soon after. In front of the real server, a fetch stands for a server whose
// creation of the instance is slow (an agent being installed): the creating POST reaches the server
// only `creationMs` later, and a request to the same instance waits for that creation to be answered
// (the server's one-creation-per-id lock), or for its own abort. The held creation is a request on
// the server, not work of this process: its timer does not keep the process alive.
//
//   node --import tsx disconnect-mid-connect-child.ts <baseUrl> <creationMs>
import { SandboxAgentClient } from "../../../lib/sandbox/index.js";

const [baseUrl, creationArg] = process.argv.slice(2) as [string, string];
const creationMs = Number(creationArg);
const say = (line: string): void => void process.stdout.write(`${line}\n`);

const aborted = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

let posted!: () => void;
const creating = new Promise<void>((resolve) => (posted = resolve));
let creation: Promise<unknown> | undefined;
let instancePath: string | undefined;
const fetch: typeof globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (request.method === "POST" && url.searchParams.has("agent")) {
    instancePath = url.pathname;
    const body = await request.text();
    const headers = new Headers(request.headers);
    const deliver = (): Promise<Response> => globalThis.fetch(request.url, { method: "POST", headers, body });
    creation = new Promise((resolve) => setTimeout(() => resolve(deliver()), creationMs).unref());
    posted();
    return aborted(request.signal);
  }
  if (creation && url.pathname === instancePath && request.method === "POST") {
    await Promise.race([creation, aborted(request.signal)]);
  }
  return globalThis.fetch(request);
};

const client = new SandboxAgentClient({ baseUrl, agent: "mock", serverApi: "v1", autoConnect: false, fetch });
const connecting = client.connect().then(
  () => "connected",
  (error: unknown) => (error as Error).name,
);
await creating;
await client.disconnect();
say(`disconnected ${await connecting}`);
