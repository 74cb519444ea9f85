// The set-up the desktop suites share: a real 0.4.2 server with a Desktop over its control plane,
// and a teardown that also ends the desktop helpers that outlive the server.
import { ControlPlaneHttp } from "../../../lib/sandbox/server/control-plane.js";
import { Desktop } from "../../../lib/sandbox/server/desktop/index.js";
import {
  startSandboxAgent,
  type SandboxAgentServer,
  type StartSandboxAgentOptions,
} from "../../support/sandbox-agent-server.js";
import { leftoverDesktopPids } from "./desktop-component.js";

export interface DesktopServer {
  readonly server: SandboxAgentServer;
  readonly http: ControlPlaneHttp;
  readonly desktop: Desktop;
  /** Stops the desktop and the server, then kills this server's leftover desktop processes. */
  stop(): Promise<void>;
}

export interface DesktopServerOptions extends Pick<StartSandboxAgentOptions, "token" | "env"> {
  /** The fetch the control plane uses (a counting one, say); default the global one. */
  fetch?: typeof fetch;
}

export async function startDesktopServer(options: DesktopServerOptions = {}): Promise<DesktopServer> {
  const server = await startSandboxAgent({ token: options.token, env: options.env });
  const { token, fetch } = options;
  const http = new ControlPlaneHttp({ baseUrl: server.baseUrl, token, headers: undefined, fetch });
  const desktop = new Desktop(http, { baseUrl: server.baseUrl });
  return {
    server,
    http,
    desktop,
    stop: async () => {
      await desktop.stop().catch(() => undefined);
      await server.stop();
      // xclip (from clipboard.set) and dbus-daemon outlive the server; they are this server's own.
      for (const pid of leftoverDesktopPids(server.home)) process.kill(pid, "SIGKILL");
    },
  };
}
