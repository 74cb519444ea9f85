import type * as v from "valibot";
import type { ControlPlaneHttp } from "../control-plane.js";
import type { CallOptions } from "../../call-options.js";
import { refineHttpError } from "../../error-mapping.js";
import { SandboxAgentHttpError, type HttpErrorKind } from "../../errors.js";

type Method = "get" | "put" | "post" | "delete";
type Query = Record<string, string | number | boolean | undefined>;

interface RouteInit {
  query?: Query | undefined;
  json?: unknown;
}

/** The client's finer reading of a 409 from one route, by the server's words (`undefined`: none). */
export type ConflictKind = (detail: string) => HttpErrorKind | undefined;

/** Bytes from a route that answers with a file (screenshot, recording), with their media type. */
export interface DesktopFile {
  bytes: Uint8Array;
  contentType: string;
}

/**
 * The desktop's routes over a `ControlPlaneHttp`: every failure comes out as the most specific
 * error class (`refineHttpError`), queries drop undefined members, and bodies are JSON.
 */
export class DesktopRoutes {
  readonly #http: ControlPlaneHttp;
  readonly #prefix: string;

  constructor(http: ControlPlaneHttp, prefix = "/v1/desktop") {
    this.#http = http;
    this.#prefix = prefix;
  }

  async json<T>(
    operation: string,
    schema: v.GenericSchema<unknown, T>,
    method: Method,
    path: string,
    init: RouteInit,
    call: CallOptions | undefined,
    conflictKind?: ConflictKind,
  ): Promise<T> {
    try {
      return await this.#http.json(operation, schema, method, this.#prefix + path, this.#init(init, call));
    } catch (error) {
      const kind =
        error instanceof SandboxAgentHttpError && error.status === 409
          ? conflictKind?.(error.problem?.detail ?? error.bodyText ?? "")
          : undefined;
      throw refineHttpError(error, kind === undefined ? {} : { kind });
    }
  }

  async bytes(operation: string, path: string, query: Query | undefined, call?: CallOptions): Promise<DesktopFile> {
    try {
      // Read within the call's bound: headers then a stalled body must still end at its `timeoutMs`.
      const answer = await this.#http.read(operation, "get", this.#prefix + path, this.#init({ query }, call));
      return { bytes: answer.bytes, contentType: answer.contentType ?? "application/octet-stream" };
    } catch (error) {
      throw refineHttpError(error);
    }
  }

  async empty(operation: string, method: Method, path: string, call: CallOptions | undefined): Promise<void> {
    try {
      const response = await this.#http.send(operation, method, this.#prefix + path, this.#init({}, call));
      await response.body?.cancel();
    } catch (error) {
      throw refineHttpError(error);
    }
  }

  #init(init: RouteInit, call: CallOptions | undefined) {
    const query: Record<string, string | boolean | undefined> = {};
    for (const [key, value] of Object.entries(init.query ?? {})) {
      query[key] = typeof value === "number" ? String(value) : value;
    }
    const body = init.json !== undefined ? { json: init.json } : {};
    return { query, ...body, signal: call?.signal, timeoutMs: call?.timeoutMs };
  }
}

/** `path` segment for an id the caller gave (window ids, recording ids). */
export const segment = (id: string): string => encodeURIComponent(id);
