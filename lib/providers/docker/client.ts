// dockerode is an optional peer dependency: loaded on first use, with a clear error when missing.
import type Dockerode from "dockerode";
import { providerError } from "../../sandbox/kit.js";

/** A client for the engine at `DOCKER_HOST` (or the default socket). */
export async function dockerClient(): Promise<Dockerode> {
  let module: { default: typeof Dockerode };
  try {
    module = (await import("dockerode")) as { default: typeof Dockerode };
  } catch (error) {
    const detail = "the docker() provider needs the `dockerode` package (npm install dockerode)";
    throw providerError("docker", "connect", detail, { cause: error });
  }
  // dockerode reads DOCKER_HOST (and DOCKER_CERT_PATH, ...) itself when given no options.
  return new module.default();
}
