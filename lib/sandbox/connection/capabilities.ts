// What the client and the agent tell each other they can do when a connection opens, in the
// sandbox layer's words: the client's `shows` option becomes the protocol's client session
// capabilities, and the agent's answer becomes `ConnectInfo.agentCan`.
import type { AgentCapabilities, ClientCapabilities } from "../../acp-http/index.js";
import type { ConnectInfo } from "../types.js";

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
export function readAgentCan(capabilities: AgentCapabilities | undefined): ConnectInfo["agentCan"] {
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

/** Before a connection has answered: the agent has said it can do nothing optional. */
export const NOTHING_SAID: ConnectInfo["agentCan"] = {
  loadSession: false,
  listSessions: false,
  deleteSession: false,
  logout: false,
  additionalDirectories: false,
};
