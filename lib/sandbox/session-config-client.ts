import type { Observable } from "rxjs";
import type { CallOptions } from "./connection.js";
import type { SandboxEvent } from "./events.js";
import { SandboxServerRoutes } from "./server-client.js";
import { SessionSettings, type SessionState, type StoredSessionState } from "./session-config.js";
import type { SessionConfigOption, SessionModes } from "./session-config-schemas.js";
import type { SandboxAgentClientOptions } from "./types.js";

/**
 * The session-configuration layer of the client: a session's modes, configuration options, model
 * and thought level (see `SessionSettings` for where the known ones come from). The calls go over
 * the live connection (`sessionCall`); a stored session's local id is mapped to its agent session id
 * (`agentSessionId`), as for prompts.
 */
export abstract class SandboxSessionConfig extends SandboxServerRoutes {
  readonly #settings: SessionSettings;

  /** `events$`: the client's session events, which keep each session's known modes and options current. */
  protected constructor(options: SandboxAgentClientOptions, events$: Observable<SandboxEvent>) {
    super(options);
    this.#settings = new SessionSettings({
      events$,
      send: (method, params, call) => this.sessionCall(method, params, call),
      agentOptions: async (call) => (await this.getAgent(options.agent ?? "", { ...call, config: true })).configOptions,
      changed: (sessionId, known) => this.sessionConfigChanged(sessionId, known),
    });
  }

  /** Sends a session method on the live connection (waiting for one being made, within `call`'s bounds). */
  protected abstract sessionCall(method: string, params: Record<string, unknown>, call?: CallOptions): Promise<unknown>;

  /** The agent's session id on the live connection for a local session id (itself when not a stored session). */
  protected abstract agentSessionId(sessionId: string): string;

  /** Records the modes and options a `session/new` or `session/load` result reports for the agent's session. */
  protected recordSessionConfig(agentSessionId: string, result: unknown): void {
    this.#settings.record(agentSessionId, result);
  }

  /** Called whenever what is known of a session's modes and options changes (the agent's session id). */
  protected sessionConfigChanged(_agentSessionId: string, _known: SessionState): void {}

  /**
   * The stored configuration for a session the agent opened afresh (see `SessionSettings.restore`),
   * or, with `result` undefined, for one it still has (taken as known, nothing sent).
   */
  protected async restoreSessionConfig(
    agentSessionId: string,
    result: unknown,
    stored: StoredSessionState,
    call?: CallOptions,
  ): Promise<{ state: SessionState; failures: unknown[] }> {
    if (result === undefined) this.#settings.adopt(agentSessionId, stored);
    const failures = result === undefined ? [] : await this.#settings.restore(agentSessionId, result, stored, call);
    return { state: this.#settings.known(agentSessionId), failures };
  }

  /** The session's modes (current and available), or null when the agent reported none. */
  getSessionModes(sessionId: string, call?: CallOptions): Promise<SessionModes | null> {
    return this.#settings.modes(this.agentSessionId(sessionId), call);
  }

  /** The session's configuration options, kept current from its update events. */
  getSessionConfigOptions(sessionId: string, call?: CallOptions): Promise<SessionConfigOption[]> {
    return this.#settings.configOptions(this.agentSessionId(sessionId), call);
  }

  /**
   * Switches mode. A mode the session does not list is an `UnsupportedFeatureError` (with the valid
   * ids) and is not sent; an agent without `session/set_mode` gets the `mode` config option set.
   */
  setSessionMode(sessionId: string, modeId: string, call?: CallOptions): Promise<void> {
    return this.#settings.setMode(this.agentSessionId(sessionId), modeId, call);
  }

  /** Sets a config option, checked against the session's options; resolves with the agent's answer. */
  setSessionConfigOption(sessionId: string, configId: string, value: unknown, call?: CallOptions): Promise<unknown> {
    return this.#settings.setOption(this.agentSessionId(sessionId), configId, value, call);
  }

  /** `session/set_model`, or the `model` config option when the agent has no such method. */
  setSessionModel(sessionId: string, modelId: string, call?: CallOptions): Promise<void> {
    return this.#settings.setModel(this.agentSessionId(sessionId), modelId, call);
  }

  /** Sets the config option of category `thought_level` (`UnsupportedFeatureError` when there is none). */
  async setSessionThoughtLevel(sessionId: string, level: string, call?: CallOptions): Promise<void> {
    await this.#settings.setCategory(this.agentSessionId(sessionId), "thought_level", level, call);
  }
}
