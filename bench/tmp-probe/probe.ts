import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { fakeServer } from "../../bench/support/synthetic.js";
const fake = fakeServer();
const f = (async (input: any, init?: any) => { const r = new Request(input, init); console.log(r.method, r.url); return fake.fetch(input, init); }) as typeof fetch;
const client = new SandboxAgentClient({ baseUrl: "http://bench.invalid", agent: "mock", fetch: f, autoConnect: false } as any);
console.log(await client.connect());
await new Promise((r) => setTimeout(r, 300));
await client.disconnect();
