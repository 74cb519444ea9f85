import { untilAborted } from "../../internal/abort.js";
import type { CallSignal, Logger } from "../call-options.js";
import { stoppedBy } from "../deadline.js";
import { ControlPlaneHttp } from "./control-plane.js";
import type { ControlRoutes, ExtensionChannel } from "./control-routes.js";
import { CallTimeoutError, SandboxAgentError, SandboxAgentHttpError } from "../errors.js";
import { unreachable, refineHttpError } from "../error-mapping.js";
import { detectServerApi, profileFor, PROBE_ROUTE, PROBE_TIMEOUT_MS, type ServerApi } from "./profiles.js";
import type { SandboxAgentClientOptions } from "../types.js";

/**
 * Which contract the server speaks (given, or asked of the server once) and that contract's
 * control-plane routes. Calls made while the probe runs share it; a failed probe is not
 * remembered: the next call asks again. A failure is reported as the failure of the user's call
 * that needed the probe (`operation`), never under the probe's own name.
 */
export class ServerContract {
  /** The HTTP client of the control plane (base URL, token, headers, fetch), which the probe asks with. */
  readonly http: ControlPlaneHttp;
  readonly #given: ServerApi | undefined;
  readonly #baseUrl: string;
  #known: ServerApi | undefined;
  #probe: Promise<ServerApi> | undefined;

  constructor(options: SandboxAgentClientOptions & { logger?: Logger | undefined }) {
    const { baseUrl, token, headers, fetch, logger } = options;
    this.http = new ControlPlaneHttp({ baseUrl, token, headers, fetch, logger });
    this.#given = options.serverApi;
    this.#baseUrl = baseUrl;
  }

  /** The contract named in the options, if any (known without asking). */
  get given(): ServerApi | undefined {
    return this.#given;
  }

  /**
   * The contract. `operation` is the user's call that needs it (its name is on any failure);
   * `call`'s signal (its deadline included) bounds this caller's wait (the shared probe has its own
   * bound, `PROBE_TIMEOUT_MS`).
   */
  async api(operation: string, call?: CallSignal): Promise<ServerApi> {
    const known = this.#given ?? this.#known;
    if (known) return known;
    if (!this.#probe) {
      const probe = detectServerApi(this.http);
      this.#probe = probe;
      probe.then(
        (api) => (this.#known = api),
        () => {
          if (this.#probe === probe) this.#probe = undefined;
        },
      );
    }
    const failed = this.#probe.catch((error: unknown) => {
      throw this.#asFailureOf(operation, error);
    });
    // A caller whose own bound fired first no longer waits for this one.
    failed.catch(() => undefined);
    return await untilAborted(failed, call?.signal, (reason) => stoppedBy(reason, operation));
  }

  /**
   * The control-plane routes for the user's call `operation`; on v2 most are extensions sent over
   * `channel` (the session connection).
   */
  async routes(operation: string, channel: ExtensionChannel, call?: CallSignal): Promise<ControlRoutes> {
    return profileFor(await this.api(operation, call)).controlRoutes(this.http, channel);
  }

  /** The probe's failure as the failure of `operation` (the probe's own error stays as `cause`). */
  #asFailureOf(operation: string, error: unknown): unknown {
    if (error instanceof SandboxAgentHttpError && (error.status === 401 || error.status === 403)) {
      const { status, problem, bodyText } = error;
      // The kind kept: the client's reading (`token-missing`) of the probe's answer holds for the call.
      const options = { cause: error, kind: error.kind };
      return refineHttpError(new SandboxAgentHttpError(operation, status, problem, bodyText, options));
    }
    if (error instanceof SandboxAgentHttpError) {
      // Not a NotFoundError for the user's call: a 404 here says nothing about the file or agent asked for.
      const message =
        `${operation} failed: the server at ${this.#baseUrl} answered ${PROBE_ROUTE} with HTTP ${error.status} ` +
        "(a sandbox-agent server answers 200, or 410 for the v2 contract); check that baseUrl points at one";
      return new SandboxAgentError(message, { cause: error, kind: "protocol" });
    }
    if (error instanceof CallTimeoutError) {
      const message =
        `${operation} failed: the server at ${this.#baseUrl} did not answer ${PROBE_ROUTE} within ` +
        `${PROBE_TIMEOUT_MS} ms (asked to learn its contract); check baseUrl, or set the serverApi option ` +
        '("v1" or "v2") to skip this probe';
      return new SandboxAgentError(message, { cause: error, kind: "network" });
    }
    if (error instanceof SandboxAgentError && error.kind === "network") {
      return unreachable(operation, error.cause ?? error, this.#baseUrl);
    }
    return error;
  }
}
