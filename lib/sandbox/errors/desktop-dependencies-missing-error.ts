import { SandboxAgentHttpError } from "./http-error.js";

/**
 * HTTP 503 `desktop_dependencies_missing`: the sandbox lacks the programs the desktop needs.
 * `installCommand` is what the server suggests running inside the sandbox (as root).
 */
export class DesktopDependenciesMissingError extends SandboxAgentHttpError {
  override name = "DesktopDependenciesMissingError";
  /** Program names the server looked for and did not find, e.g. `["Xvfb", "xdotool"]`. */
  readonly missingDependencies: string[];
  /** The server's install command, e.g. `sandbox-agent install desktop --yes`. */
  readonly installCommand: string | undefined;

  constructor(...args: ConstructorParameters<typeof SandboxAgentHttpError>) {
    super(...args);
    const problem = this.problem;
    const missing: unknown = problem?.missingDependencies;
    this.missingDependencies = Array.isArray(missing)
      ? missing.filter((name): name is string => typeof name === "string")
      : [];
    this.installCommand = typeof problem?.installCommand === "string" ? problem.installCommand : undefined;
  }
}
