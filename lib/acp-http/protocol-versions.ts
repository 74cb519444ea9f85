// The protocol versions this client speaks, as data: what each calls its methods, which it lacks,
// how a turn ends, how `initialize` is shaped. client.ts reads the profile of the version
// `initialize` negotiated (before that, of the version asked for); nothing else asks "is it v2?".
// Version 2 is the ACP v2 draft (experimental; `experimental/v2` of @agentclientprotocol/sdk 2.4.0).
import type * as v from "valibot";
import {
  InitializeResultSchema,
  V2InitializeResultSchema,
  type InitializeResult,
} from "./acp-types.js";

/** A protocol version this client speaks: 1 (stable ACP), or 2 (the ACP v2 draft, experimental, opt-in). */
export type AcpProtocolVersion = 1 | 2;

/** One protocol version's differences, as data. */
export interface ProtocolProfile {
  readonly version: AcpProtocolVersion;
  /**
   * The wire method of each `AcpHttpClient` method in this version, by the client method's name. A
   * client method missing here does not exist in this version: it fails before anything is sent.
   */
  readonly methods: Readonly<Record<string, string>>;
  /** Parameters of a client method that this version does not have (refused before anything is sent). */
  readonly absentParams: Readonly<Record<string, readonly string[]>>;
  /**
   * When a `session/prompt` is over: `response`, when its answer comes (v1); `idle`, when the
   * session's `state_update` reports `idle` after the answer acknowledged the prompt (v2).
   */
  readonly turnEnd: "response" | "idle";
  /** The names `initialize` gives the client's identity and capabilities (v1 `clientInfo`, v2 `info`). */
  readonly initialize: { readonly info: string; readonly capabilities: string };
  /** How `initialize`'s answer reads in this version (v2 names an auth method `methodId`, v1 `id`). */
  readonly initializeResult: v.GenericSchema<unknown, InitializeResult>;
  /**
   * The client capabilities this version defines that a handler makes possible (v2 has no
   * client-side files or terminals: its terminals are the agent's).
   */
  readonly handlerCapabilities: readonly ("fs" | "terminal" | "elicitation")[];
}

// The methods both versions name alike.
const SHARED_METHODS = {
  initialize: "initialize",
  newSession: "session/new",
  prompt: "session/prompt",
  cancel: "session/cancel",
  setSessionConfigOption: "session/set_config_option",
  listSessions: "session/list",
  deleteSession: "session/delete",
  resumeSession: "session/resume",
  closeSession: "session/close",
  unstableListSessions: "session/list",
  unstableResumeSession: "session/resume",
  unstableCloseSession: "session/close",
} as const;

/** Every version this client speaks, by number. */
export const PROTOCOL_PROFILES: Readonly<Record<AcpProtocolVersion, ProtocolProfile>> = {
  1: {
    version: 1,
    methods: {
      ...SHARED_METHODS,
      authenticate: "authenticate",
      logout: "logout",
      loadSession: "session/load",
      setSessionMode: "session/set_mode",
      unstableForkSession: "session/fork",
      unstableArchiveSession: "session/archive",
      unstableUnarchiveSession: "session/unarchive",
      unstableSessionStatus: "session/status",
      unstableSetSessionTitle: "session/set_title",
      unstableSetSessionModel: "session/set_model",
    },
    absentParams: { resumeSession: ["replayFrom"], unstableResumeSession: ["replayFrom"] },
    turnEnd: "response",
    initialize: { info: "clientInfo", capabilities: "clientCapabilities" },
    initializeResult: InitializeResultSchema,
    handlerCapabilities: ["fs", "terminal", "elicitation"],
  },
  2: {
    version: 2,
    methods: {
      ...SHARED_METHODS,
      // v2 renames the auth methods; `authenticate` and `logout` keep their client names.
      authenticate: "auth/login",
      logout: "auth/logout",
      cancelToolCall: "tool_call/cancel",
      cancelTerminal: "terminal/cancel",
    },
    absentParams: {},
    turnEnd: "idle",
    initialize: { info: "info", capabilities: "capabilities" },
    // Read as an InitializeResult whose v1 fields are absent (its `authMethods` name `methodId`).
    initializeResult: V2InitializeResultSchema as unknown as v.GenericSchema<unknown, InitializeResult>,
    handlerCapabilities: ["elicitation"],
  },
};

/** The highest version this client speaks. */
export const HIGHEST_PROTOCOL_VERSION: AcpProtocolVersion = 2;

/**
 * The profile of the version `initialize` was answered with, or undefined when this client cannot
 * speak it: the agent answers the highest version it has at or below the one asked for, so an answer
 * above `requested`, or one with no profile, is a version the client must not speak. A numeric
 * string is read as its number (some servers echo the version as a string, `"1"` or `"1.0"`). Asked
 * for 1, the answer is not checked: the stable client never did (servers answer `"2025-06-18"`, 0, 2).
 */
export function negotiatedProfile(requested: AcpProtocolVersion, answered: unknown): ProtocolProfile | undefined {
  if (requested === 1) return PROTOCOL_PROFILES[1];
  const version = typeof answered === "string" && /^\d+(\.0+)?$/.test(answered) ? Number(answered) : answered;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1 || version > requested) return undefined;
  return PROTOCOL_PROFILES[version as AcpProtocolVersion];
}

/**
 * The profile of a version given as an option: 2 (or `"2"`) asks for the v2 draft; anything else is
 * read as 1, as the option was before the draft (a stored connection's header value, `"2025-06-18"`).
 */
export function profileOf(version: number | string): ProtocolProfile {
  return negotiatedProfile(HIGHEST_PROTOCOL_VERSION, version) ?? PROTOCOL_PROFILES[1];
}
