import ky, { TimeoutError, type KyInstance } from "ky";
import * as v from "valibot";
import { readHttpProblem, type TokenSource } from "../acp-http/index.js";
import { CallAbortedError, CallTimeoutError, NetworkError, ProtocolError } from "./errors/call-errors.js";
import { SandboxAgentHttpError } from "./errors/http-error.js";
import { SandboxAgentError } from "./errors/sandbox-agent-error.js";

/**
 * The plain-HTTP routes of the server (health, agents, filesystem), with bodies and
 * queries exactly as the contracts document them. Responses are validated loosely:
 * required fields checked, anything extra passed through.
 */

export const HealthSchema = v.looseObject({ status: v.string() });
export type Health = v.InferOutput<typeof HealthSchema>;

export const AgentInfoSchema = v.looseObject({
  id: v.string(),
  installed: v.boolean(),
  credentialsAvailable: v.optional(v.boolean()),
  version: v.optional(v.nullable(v.string())),
  path: v.optional(v.nullable(v.string())),
  capabilities: v.optional(v.record(v.string(), v.unknown())),
});
export type AgentInfo = v.InferOutput<typeof AgentInfoSchema>;
export const AgentListSchema = v.looseObject({ agents: v.array(AgentInfoSchema) });

export const InstallResultWireSchema = v.looseObject({
  already_installed: v.boolean(),
  artifacts: v.array(v.looseObject({ kind: v.string(), path: v.string(), source: v.optional(v.string()), version: v.optional(v.nullable(v.string())) })),
});
export interface InstallResult {
  alreadyInstalled: boolean;
  artifacts: v.InferOutput<typeof InstallResultWireSchema>["artifacts"];
}

export const FsEntrySchema = v.looseObject({
  name: v.string(),
  path: v.string(),
  entryType: v.string(),
  size: v.number(),
  modified: v.optional(v.unknown()),
});
export type FsEntry = v.InferOutput<typeof FsEntrySchema>;
export const FsStatSchema = v.looseObject({ path: v.string(), entryType: v.string(), size: v.number(), modified: v.optional(v.unknown()) });
export type FsStat = v.InferOutput<typeof FsStatSchema>;
export const WriteResultSchema = v.looseObject({ path: v.string(), bytesWritten: v.number() });
export type WriteResult = v.InferOutput<typeof WriteResultSchema>;
export const PathResultSchema = v.looseObject({ path: v.string() });
export const MoveResultSchema = v.looseObject({ from: v.string(), to: v.string() });
export type MoveResult = v.InferOutput<typeof MoveResultSchema>;
export const UploadResultSchema = v.looseObject({ paths: v.array(v.string()), truncated: v.boolean() });
export type UploadResult = v.InferOutput<typeof UploadResultSchema>;

export interface InstallOptions {
  reinstall?: boolean;
  agentVersion?: string;
  agentProcessVersion?: string;
}

export interface HttpSettings {
  baseUrl: string;
  token: TokenSource | undefined;
  headers: Record<string, string> | undefined;
  fetch: typeof globalThis.fetch | undefined;
}

type Query = Record<string, string | boolean | undefined>;

interface ControlRequest {
  query?: Query;
  json?: unknown;
  body?: BodyInit;
  contentType?: string;
  signal?: AbortSignal | undefined;
  /** A deadline for this request (ky's own timeout); none by default. */
  timeoutMs?: number | undefined;
}

/** One request to a control-plane route: auth, error mapping and result validation in one place. */
export class ControlPlaneHttp {
  readonly #settings: HttpSettings;
  readonly #ky: KyInstance;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
    this.#ky = ky.create({ retry: 0, timeout: false, throwHttpErrors: false, ...(settings.fetch ? { fetch: settings.fetch } : {}) });
  }

  /** Sends one request; returns the raw 2xx response (the caller reads the body). */
  async send(operation: string, method: "get" | "put" | "post" | "delete", path: string, init: ControlRequest = {}): Promise<Response> {
    const headers: Record<string, string> = { ...this.#settings.headers };
    const token = typeof this.#settings.token === "function" ? await this.#settings.token() : this.#settings.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (init.contentType) headers["content-type"] = init.contentType;
    for (const [name, value] of Object.entries(headers)) {
      if (/[\r\n]/.test(value)) throw new SandboxAgentError(`${operation}: header "${name}" has a CR or LF character; refusing to send it`);
    }
    let response: Response;
    try {
      response = await this.#ky(url(this.#settings.baseUrl, path, init.query), {
        method,
        headers,
        ...(init.json !== undefined ? { json: init.json } : {}),
        ...(init.body !== undefined ? { body: init.body } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
        timeout: init.timeoutMs ?? false,
      });
    } catch (error) {
      if (error instanceof TimeoutError) throw new CallTimeoutError(`${operation} timed out after ${init.timeoutMs} ms`, { cause: error });
      if (init.signal?.aborted) throw new CallAbortedError(`${operation} was aborted`, { cause: init.signal.reason });
      throw new NetworkError(`${operation} failed: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      const { problem, bodyText } = await readHttpProblem(response);
      throw new SandboxAgentHttpError(operation, response.status, problem, bodyText);
    }
    return response;
  }

  async json<T>(operation: string, schema: v.GenericSchema<unknown, T>, method: "get" | "put" | "post" | "delete", path: string, init: ControlRequest = {}): Promise<T> {
    const response = await this.send(operation, method, path, init);
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new ProtocolError(`${operation}: the response was not JSON`, { cause: error });
    }
    return validate(operation, schema, body);
  }
}

export function validate<T>(operation: string, schema: v.GenericSchema<unknown, T>, value: unknown): T {
  const parsed = v.safeParse(schema, value);
  if (!parsed.success) throw new ProtocolError(`${operation}: unexpected response shape: ${parsed.issues[0]?.message ?? "invalid"}`);
  return parsed.output;
}

export function toInstallResult(wire: v.InferOutput<typeof InstallResultWireSchema>): InstallResult {
  return { alreadyInstalled: wire.already_installed, artifacts: wire.artifacts };
}

function url(baseUrl: string, path: string, query: Query | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(key, String(value));
  const qs = search.toString();
  return `${baseUrl.replace(/\/+$/, "")}${path}${qs ? `?${qs}` : ""}`;
}
