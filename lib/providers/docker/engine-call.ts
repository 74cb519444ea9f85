// Engine API calls with the provider's own errors: what failed, and the engine's message for it.
import type Dockerode from "dockerode";
import { providerError } from "../../sandbox/kit.js";

const PROVIDER = "docker";

/** `run()`, with an engine failure turned into a `sandbox-provider` error naming `operation`. */
export async function engineCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    const detail = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
    const message = `Docker Engine: ${status ?? ""} ${detail}`.trim();
    throw providerError(PROVIDER, operation, message, { cause: error });
  }
}

/** Force-removes a container; one that is gone already, or already being removed, is not an error. */
export async function removeContainer(container: Dockerode.Container): Promise<void> {
  await container.remove({ force: true }).catch((error: { statusCode?: number }) => {
    // 404: gone already; 409: a removal is already under way.
    if (error?.statusCode === 404 || error?.statusCode === 409) return;
    const detail = `could not remove ${shortId(container.id)}`;
    throw providerError(PROVIDER, "destroy", detail, { cause: error });
  });
}

/** A container id as `docker ps` shows it, for messages. */
export const shortId = (id: string): string => id.slice(0, 12);
