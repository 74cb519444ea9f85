import type { ControlPlaneHttp } from "./control-plane.js";
import type { ControlRoutes, ExtensionCall } from "./control-routes.js";
import { detectServerApi, profileFor, type ServerApi } from "./profiles.js";

/**
 * Which contract the server speaks (given, or asked of the server once) and that contract's
 * control-plane routes. A failed probe is not remembered: the next call asks again.
 */
export class ServerContract {
  readonly #http: ControlPlaneHttp;
  readonly #given: ServerApi | undefined;
  readonly #extension: ExtensionCall;
  #api: Promise<ServerApi> | undefined;

  /** `extension` sends an extension request over the session connection (v2's control plane). */
  constructor(http: ControlPlaneHttp, given: ServerApi | undefined, extension: ExtensionCall) {
    this.#http = http;
    this.#given = given;
    this.#extension = extension;
  }

  /** The contract named in the options, if any (known without asking). */
  get given(): ServerApi | undefined {
    return this.#given;
  }

  api(): Promise<ServerApi> {
    if (this.#given) return Promise.resolve(this.#given);
    if (!this.#api) {
      const detecting = detectServerApi(this.#http);
      detecting.catch(() => (this.#api = undefined));
      this.#api = detecting;
    }
    return this.#api;
  }

  /** The control-plane routes; on v2 most are extensions sent over the session connection. */
  async routes(): Promise<ControlRoutes> {
    return profileFor(await this.api()).controlRoutes(this.#http, this.#extension);
  }
}
