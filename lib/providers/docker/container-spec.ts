// The create request for a sandbox's container, and the way back: where the server of a container
// answers, read from what that request wrote into it (so reconnect and resume need no state).
import type Dockerode from "dockerode";
import type { SandboxInfo } from "../../sandbox/kit.js";
import { IMAGE_LAYOUT } from "../defaults.js";
import type { DockerSettings, Lazy } from "./options.js";

/** What one container is made for: its host port, its token (none with `--no-token`), its labels. */
export interface ContainerPlan {
  port: number;
  token: string | undefined;
  labels: Record<string, string>;
}

export async function containerSpec(
  options: DockerSettings,
  plan: ContainerPlan,
): Promise<Dockerode.ContainerCreateOptions> {
  const hostNetwork = options.networkMode === "host";
  const { port, token } = plan;
  const serverPort = hostNetwork ? port : options.agentPort;
  const bind = hostNetwork ? "127.0.0.1" : "0.0.0.0";
  const { binary } = options;
  const cmd = [binary, "server", "--no-telemetry", "-H", bind, "-p", String(serverPort)];
  cmd.push(token === undefined ? "--no-token" : `--token=${token}`);
  const binds = await resolve(options.binds);
  const host: Dockerode.HostConfig = hostNetwork
    ? { NetworkMode: "host", Binds: binds }
    : {
        NetworkMode: options.networkMode,
        Binds: binds,
        PortBindings: { [`${serverPort}/tcp`]: [{ HostIp: "127.0.0.1", HostPort: String(port) }] },
      };
  // SANDBOX_AGENT_LOG_STDOUT: the server logs to stderr, so `docker logs` has its output.
  const env = [
    `HOME=${IMAGE_LAYOUT.home}`,
    `XDG_DATA_HOME=${IMAGE_LAYOUT.dataHome}`,
    "SANDBOX_AGENT_LOG_STDOUT=1",
    "PATH=/usr/local/bin:/usr/bin:/bin",
  ];
  // The caller's extras merge into the nested parts rather than replace them: without the provider's
  // networking, binds and port the server cannot be reached, and without the ownership labels sweep()
  // cannot find the container. Other keys (Cmd, User, ...) replace the provider's, as an escape hatch should.
  const { HostConfig: extraHost, Labels: extraLabels, Env: extraEnv, ExposedPorts: extraPorts, ...rest } =
    options.createContainerOptions ?? {};
  const exposed = hostNetwork ? {} : { [`${serverPort}/tcp`]: {} };
  const ports = { ...extraPorts, ...exposed };
  return {
    Image: options.image,
    Cmd: cmd,
    WorkingDir: options.defaultCwd,
    ...rest,
    Env: [...env, ...(await resolve(options.env)), ...(extraEnv ?? [])],
    Labels: { ...options.labels, ...extraLabels, ...plan.labels },
    ...(Object.keys(ports).length > 0 ? { ExposedPorts: ports } : {}),
    HostConfig: mergeHostConfig(host, extraHost),
  };
}

/** The caller's HostConfig under the provider's: its network mode and port binding win, binds add up. */
function mergeHostConfig(host: Dockerode.HostConfig, extra: Dockerode.HostConfig | undefined): Dockerode.HostConfig {
  if (!extra) return host;
  const merged: Dockerode.HostConfig = { ...extra, ...host, Binds: [...(host.Binds ?? []), ...(extra.Binds ?? [])] };
  if (extra.PortBindings) merged.PortBindings = { ...extra.PortBindings, ...host.PortBindings };
  return merged;
}

/** Where a container's server answers, from the command line and ports `containerSpec` gave it. */
export function infoFromContainer(details: Dockerode.ContainerInspectInfo): SandboxInfo {
  const cmd = details.Config.Cmd ?? [];
  const token = cmd.find((arg) => arg.startsWith("--token="))?.slice("--token=".length);
  const inner = cmd[cmd.indexOf("-p") + 1] ?? "";
  const published = details.HostConfig.PortBindings?.[`${inner}/tcp`]?.[0]?.HostPort;
  const port = details.HostConfig.NetworkMode === "host" ? inner : published;
  const defaultCwd = details.Config.WorkingDir || IMAGE_LAYOUT.home;
  return { id: details.Id, baseUrl: `http://127.0.0.1:${port}`, ...(token ? { token } : {}), defaultCwd };
}

async function resolve<T>(value: Lazy<T[]> | undefined): Promise<T[]> {
  if (value === undefined) return [];
  return typeof value === "function" ? await value() : value;
}
