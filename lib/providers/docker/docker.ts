// The docker() provider: one container per sandbox, driven through the Engine API (dockerode).
// Default network mode is `host` with the server bound to 127.0.0.1 on a free port (works with
// `dockerd --bridge=none`); other modes publish the in-container port on 127.0.0.1 instead.
// The create request is in container-spec.ts, the start-up wait in startup.ts.
import { randomBytes, randomUUID } from "node:crypto";
import type Dockerode from "dockerode";
import {
  CallAbortedError,
  providerError,
  sandboxNotFound,
  SandboxStartError,
  type SandboxCallOptions,
  type SandboxInfo,
  type SandboxProvider,
} from "../../sandbox/kit.js";
import { freePort } from "../local/ports.js";
import { dockerClient } from "./client.js";
import { containerSpec, infoFromContainer } from "./container-spec.js";
import { engineCall, removeContainer, shortId } from "./engine-call.js";
import { DOCKER_DEFAULTS } from "../defaults.js";
import { dockerSettings, type DockerProviderOptions } from "./options.js";
import { LABELS, ownerLabels, ownerState } from "./ownership.js";
import { startAndWait } from "./startup.js";

/** The docker() provider, plus crash recovery. */
export interface DockerProvider extends SandboxProvider {
  /**
   * Removes containers this library labelled that nobody owns any more: those whose owning
   * process (on this host) is gone, and those that are no longer running (killed, exited). Running
   * sandboxes of live owners stay. `all: true` also removes running ones of other live owners.
   * Resolves with the ids removed.
   */
  sweep(options?: SandboxCallOptions & { all?: boolean }): Promise<string[]>;
}

/** Sandboxes as Docker containers. */
export function docker(given: DockerProviderOptions): DockerProvider {
  const options = dockerSettings(given);
  const name = "docker";
  const providerId = randomUUID();
  const owned = new Map<string, SandboxInfo>();
  let client: Promise<Dockerode> | undefined;
  const engine = (): Promise<Dockerode> =>
    (client ??= options.docker ? Promise.resolve(options.docker) : dockerClient());

  async function create(call: SandboxCallOptions = {}): Promise<SandboxInfo> {
    const api = await engine();
    const token = options.token === false ? undefined : (options.token ?? randomBytes(24).toString("hex"));
    for (let attempt = 1; ; attempt++) {
      if (call.signal?.aborted) throw new CallAbortedError("docker.create was aborted", { cause: call.signal.reason });
      const port = await freePort();
      const spec = await containerSpec(options, { port, token, labels: ownerLabels(providerId) });
      const container = await engineCall("create", () => api.createContainer(spec));
      const wait = {
        port,
        token,
        signal: call.signal,
        timeoutMs: options.startTimeoutMs,
        defaultCwd: options.defaultCwd,
      };
      const started = await startAndWait(container, wait).catch(async (error: unknown) => {
        await removeContainer(container);
        throw error;
      });
      if (started !== "port-in-use") {
        owned.set(started.id, started);
        return started;
      }
      await removeContainer(container);
      if (attempt >= DOCKER_DEFAULTS.portAttempts) {
        throw new SandboxStartError(name, "port-in-use", `no free port after ${attempt} attempts`);
      }
    }
  }

  async function destroy(id: string): Promise<void> {
    const container = (await engine()).getContainer(id);
    await container.stop({ t: options.stopTimeoutSeconds }).catch(() => undefined);
    await removeContainer(container);
    owned.delete(id);
  }

  async function inspect(id: string): Promise<Dockerode.ContainerInspectInfo> {
    try {
      return await (await engine()).getContainer(id).inspect();
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404) throw sandboxNotFound(name, id, { cause: error });
      throw providerError(name, "inspect", `could not inspect ${shortId(id)}`, { cause: error });
    }
  }

  /** Where a container's server answers; only for containers this library made. */
  function infoOf(details: Dockerode.ContainerInspectInfo): SandboxInfo {
    if (details.Config.Labels?.[LABELS.managed] !== "true") throw sandboxNotFound(name, details.Id);
    return infoFromContainer(details);
  }

  async function sweep(call: SandboxCallOptions & { all?: boolean } = {}): Promise<string[]> {
    const api = await engine();
    const filters = { label: [`${LABELS.managed}=true`] };
    const listed = await engineCall("sweep", () => api.listContainers({ all: true, filters }));
    const removed: string[] = [];
    for (const info of listed) {
      if (call.signal?.aborted) throw new CallAbortedError("docker.sweep was aborted", { cause: call.signal.reason });
      const running = info.State === "running" || info.State === "paused";
      const mine = info.Labels?.[LABELS.provider] === providerId && owned.has(info.Id);
      const orphan = ownerState(info.Labels) === "gone";
      if (running && mine) continue;
      if (running && !orphan && !call.all) continue;
      await removeContainer(api.getContainer(info.Id));
      owned.delete(info.Id);
      removed.push(info.Id);
    }
    return removed;
  }

  return {
    name,
    create,
    destroy,
    async pause(id) {
      await engineCall("pause", () => engine().then((api) => api.getContainer(id).pause()));
    },
    async resume(id) {
      await engineCall("resume", () => engine().then((api) => api.getContainer(id).unpause()));
      return infoOf(await inspect(id));
    },
    async reconnect(id) {
      const details = await inspect(id);
      if (!details.State.Running) throw sandboxNotFound(name, id);
      return infoOf(details);
    },
    sweep,
  };
}
