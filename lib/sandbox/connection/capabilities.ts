// What the client and the agent tell each other they can do when a connection opens, in the
// sandbox layer's words: the client's `shows` option becomes the protocol's client session
// capabilities, and the agent's answer becomes `ConnectInfo.agentCan`.
import type { AgentCapabilities, ClientCapabilities } from "../../acp-http/index.js";

/**
 * The optional session calls the agent said it answers (the others may still work on agents that
 * do not say; a user interface offers an action only when it is here).
 */
export interface AgentCan {
  loadSession: boolean;
  listSessions: boolean;
  deleteSession: boolean;
  logout: boolean;
  /** The `additionalDirectories` option of the session calls. */
  additionalDirectories: boolean;
}

/** The client option `shows`, each part decided (`CLIENT_DEFAULTS.shows` filled in). */
export interface Shown {
  compaction: boolean;
  notices: boolean;
  booleanOptions: boolean;
}

/**
 * The `clientCapabilities.session` part of `initialize`: `{}` for each part shown (the protocol's
 * "yes"), nothing at all when none is, which an agent reads as "no" as it does an absent field.
 */
export function clientSessionCapabilities(shows: Shown): { clientCapabilities?: ClientCapabilities } {
  const session = {
    ...(shows.compaction ? { compaction: {} } : {}),
    ...(shows.notices ? { notices: {} } : {}),
    ...(shows.booleanOptions ? { configOptions: { boolean: {} } } : {}),
  };
  return Object.keys(session).length > 0 ? { clientCapabilities: { session } } : {};
}

/** The optional calls the agent's `initialize` answer says it answers (a present object is "yes"). */
export function readAgentCan(capabilities: AgentCapabilities | undefined): AgentCan {
  const session = capabilities?.sessionCapabilities;
  const yes = (flag: unknown): boolean => typeof flag === "object" && flag !== null;
  return {
    loadSession: capabilities?.loadSession === true,
    listSessions: yes(session?.list),
    deleteSession: yes(session?.delete),
    logout: yes(capabilities?.auth?.logout),
    additionalDirectories: yes(session?.additionalDirectories),
  };
}

/**
 * The same from an ACP v2 draft answer (`capabilities`): a `session` object says the baseline session
 * methods (listing and resuming among them; loading is not in the draft), `delete` and
 * `additionalDirectories` say those, and a non-empty `authMethods` says `auth/logout`.
 */
export function readDraftAgentCan(capabilities: object, authMethods: unknown): AgentCan {
  const session = (capabilities as { session?: Record<string, unknown> | null }).session;
  const yes = (flag: unknown): boolean => typeof flag === "object" && flag !== null;
  return {
    loadSession: false,
    listSessions: yes(session),
    deleteSession: yes(session?.delete),
    logout: Array.isArray(authMethods) && authMethods.length > 0,
    additionalDirectories: yes(session?.additionalDirectories),
  };
}

/** Before a connection has answered: the agent has said it can do nothing optional. */
export const NOTHING_SAID: AgentCan = {
  loadSession: false,
  listSessions: false,
  deleteSession: false,
  logout: false,
  additionalDirectories: false,
};
