/** The permission handler's AbortSignal: a UI dialog can close itself. */
import type { PermissionContext, PermissionReply, PermissionRequest } from "../../../lib/sandbox/index.js";
import { realFactory, serverWithClients, sleep } from "./servers.js";

interface Asked {
  request: PermissionRequest;
  signal: AbortSignal;
}

/** A handler that, like an open dialog, answers only when its signal tells it the question is moot. */
type Handler = (request: PermissionRequest, context: PermissionContext) => Promise<PermissionReply>;

function dialog(): { asked: Promise<Asked>; handler: Handler } {
  let seen: (asked: Asked) => void = () => undefined;
  const asked = new Promise<Asked>((resolve) => (seen = resolve));
  const handler = (request: PermissionRequest, context: PermissionContext): Promise<PermissionReply> => {
    seen({ request, signal: context.signal });
    return new Promise((resolve) => {
      context.signal.addEventListener("abort", () => resolve({ outcome: "cancelled" }), { once: true });
    });
  };
  return { asked, handler };
}

async function aborted(signal: AbortSignal, ms = 5000): Promise<boolean> {
  for (let waited = 0; waited < ms && !signal.aborted; waited += 20) await sleep(20);
  return signal.aborted;
}

describe("onPermissionRequest's signal against the real 0.4.2 server", () => {
  const { client } = serverWithClients(realFactory);

  it("is passed to the handler and aborts when the connection closes", async () => {
    const { asked, handler } = dialog();
    const c = client({ onPermissionRequest: handler });
    await c.ready;
    const { sessionId } = await c.newSession();
    void c.prompt(sessionId, "permission").catch(() => undefined);
    const { request, signal } = await asked;
    expect(request.sessionId).toBe(sessionId);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    await c.disconnect();
    expect(await aborted(signal)).toBe(true);
  });

  it("aborts when the turn is cancelled", async () => {
    const { asked, handler } = dialog();
    const c = client({ onPermissionRequest: handler });
    await c.ready;
    const { sessionId } = await c.newSession();
    const turn = c.prompt(sessionId, "permission");
    const { signal } = await asked;
    await c.cancel(sessionId);
    expect(await aborted(signal)).toBe(true);
    await expect(turn).resolves.toMatchObject({ stopReason: expect.any(String) as string });
  });
});
