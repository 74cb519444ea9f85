// Bundled into the page of `cors-hint.spec.ts`: connects from the page's origin and reports how it failed.
import { SandboxAgentClient } from "../../../lib/sandbox/index.js";

async function tryConnect(baseUrl: string): Promise<{ kind?: string; message: string }> {
  const client = new SandboxAgentClient({ baseUrl, agent: "mock", autoConnect: false });
  try {
    await client.connect({ timeoutMs: 15_000 });
    return { message: "connected" };
  } catch (error) {
    return { kind: (error as { kind?: string }).kind, message: (error as Error).message };
  } finally {
    await client.disconnect().catch(() => undefined);
  }
}

(globalThis as unknown as { tryConnect: typeof tryConnect }).tryConnect = tryConnect;
