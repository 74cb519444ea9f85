import * as v from "valibot";
import type { CallOptions, CallSignal } from "../call-options.js";
import { sandboxName } from "../connection/connection.js";
import { AgentError, UnsupportedFeatureError } from "../errors.js";
import { Bound } from "../deadline.js";
import type { SandboxEvent } from "../events/events.js";
import type { ConnectionLifecycle } from "../connection/lifecycle.js";
import type { SessionRecording } from "./session-recording.js";
import type { ServerRoutes } from "../server/server-routes.js";
import type { SandboxAgentClientOptions } from "../types.js";
import { CLIENT_DEFAULTS } from "../defaults.js";

/** A session's modes and configuration options as the agent reports them (ACP `modes`, `configOptions`). */

export const SessionModeSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
});
export type SessionMode = v.InferOutput<typeof SessionModeSchema>;

export const SessionModesSchema = v.looseObject({
  currentModeId: v.string(),
  availableModes: v.array(SessionModeSchema),
});
/** The session's modes and the one it is in. */
export type SessionModes = v.InferOutput<typeof SessionModesSchema>;

const ValueSchema = v.looseObject({
  value: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
});
/** A select option's value, or a named group of values. */
const GroupSchema = v.looseObject({ name: v.optional(v.string()), options: v.array(ValueSchema) });
const ChoiceSchema = v.union([ValueSchema, GroupSchema]);

export const SessionConfigOptionSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.nullable(v.string())),
  category: v.optional(v.nullable(v.string())),
  type: v.optional(v.string()),
  currentValue: v.optional(v.unknown()),
  options: v.optional(v.array(ChoiceSchema)),
});
/**
 * One configuration option of a session (a select of values, with the current one).
 * - `category`: `model`, `mode`, `thought_level`, ... (what `setSessionModel`/`Mode`/`ThoughtLevel` look for).
 */
export type SessionConfigOption = v.InferOutput<typeof SessionConfigOptionSchema>;
export const SessionConfigOptionsSchema = v.array(SessionConfigOptionSchema);

type Choice = v.InferOutput<typeof ValueSchema>;

/** The models a session's creation or load answer lists (ACP's `models`, not yet in the stable schema). */
const ModelsSchema = v.looseObject({
  availableModels: v.array(v.looseObject({ modelId: v.string() })),
});

/** A select option's choices, groups flattened. */
function choices(option: SessionConfigOption): Choice[] {
  return (option.options ?? []).flatMap((entry) => {
    if (v.is(ValueSchema, entry)) return [entry];
    return v.is(GroupSchema, entry) ? entry.options : [];
  });
}

/** The values a select option accepts (groups flattened); empty when it is not a select. */
export function optionValues(option: SessionConfigOption): string[] {
  if (option.type !== undefined && option.type !== "select") return [];
  return [...new Set(choices(option).map((choice) => choice.value))];
}

/** Modes read off a `mode` option, for agents that report modes only as a config option. */
export function modesFromOptions(options: SessionConfigOption[]): SessionModes | null {
  const mode = options.find((option) => option.category === "mode");
  if (!mode) return null;
  // One mode per value: a value listed twice (in two groups) is the first listing.
  const unique = choices(mode).filter((entry, i, all) => all.findIndex((other) => other.value === entry.value) === i);
  const availableModes = unique.map((entry) => ({
    id: entry.value,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
  }));
  if (availableModes.length === 0) return null;
  const current = typeof mode.currentValue === "string" && mode.currentValue ? mode.currentValue : undefined;
  return { currentModeId: current ?? availableModes[0]!.id, availableModes };
}

/**
 * Models read off a `model` option, for agents that report their models only with the session and
 * as an option (Claude Code's and Codex's adapters behind 0.4.2, which lists no models for them).
 */
export function modelsFromOptions(options: SessionConfigOption[]): {
  availableModels: Array<{ modelId: string; name?: string; description?: string | null }>;
  currentModelId: string | null;
} | null {
  const model = options.find((option) => option.category === "model");
  if (!model) return null;
  const unique = choices(model).filter((entry, i, all) => all.findIndex((other) => other.value === entry.value) === i);
  if (unique.length === 0) return null;
  const availableModels = unique.map((entry) => ({
    modelId: entry.value,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
    ...(entry.description !== undefined ? { description: entry.description } : {}),
  }));
  const current = typeof model.currentValue === "string" && model.currentValue ? model.currentValue : null;
  return { availableModels, currentModelId: current };
}

/** What is known of a session's configuration (either part absent when the agent never reported it). */
export interface SessionState {
  modes?: SessionModes | null;
  configOptions?: SessionConfigOption[];
}

type Known = SessionState;

/** What a set call changes: an option by id, or the option (and for `mode`, the mode) of a category. */
interface Target {
  configId?: string;
  category?: string;
}

/** A set call in flight, and whether the agent reported the setting itself while it ran. */
interface Watch extends Target {
  reported: boolean;
}

/** Modes and options as a store keeps them (checked before use). */
export interface StoredSessionState {
  modes?: unknown;
  configOptions?: unknown;
}

const METHOD_NOT_FOUND = -32601;
const clone = <T>(value: T): T => structuredClone(value);
const unsupported = (error: unknown): boolean => error instanceof AgentError && error.code === METHOD_NOT_FOUND;

/**
 * Runs a set call's steps (the check against what is offered, the call, recording what it took) under
 * the one deadline of the call `operation`: the steps get its signal alone, so a call whose steps each
 * take most of `timeoutMs` still ends at its deadline.
 */
async function bounded<T>(operation: string, call: CallOptions | undefined, run: (call: CallSignal) => Promise<T>) {
  const bound = new Bound(operation, call);
  try {
    return await run(bound.call);
  } finally {
    bound.dispose();
  }
}

/** A stored record's modes and options, where they parse. */
function storedState(stored: StoredSessionState): Known {
  const modes = v.safeParse(SessionModesSchema, stored.modes);
  const options = v.safeParse(SessionConfigOptionsSchema, stored.configOptions);
  return {
    ...(modes.success ? { modes: modes.output } : {}),
    ...(options.success ? { configOptions: options.output } : {}),
  };
}

/**
 * Each session's modes and configuration options, as the agent last reported them: from the
 * session's creation or load result, then from its `current_mode_update` and
 * `config_option_update` events and the answers to the set calls. The set calls check a value
 * against what is known before sending it, and fall back to the matching config option where
 * the agent has no dedicated method (-32601), as the upstream SDK does.
 *
 * A set call that succeeds without the agent saying what the setting now is (an answer of `{}`, no
 * update while it ran) records the requested value itself, so the getters report what was set; for a
 * session that reported no options of its own, the agent's listed options become the session's then.
 * What the agent does say, in its answer or in an update during the call, stands over the request.
 *
 * It follows the lifecycle's `events$` and sends through its `with`; a session that never reported
 * options gets the agent's from the server's agent route; each change of what is known is written
 * to the session's record (`SessionRecording.configChanged`).
 */
export class SessionSettings {
  readonly #known = new Map<string, Known>();
  /** The model ids each session's creation or load answer listed (`models.availableModels`). */
  readonly #models = new Map<string, string[]>();
  /** The option `shows.booleanOptions`: whether the client takes on/off options (said in `initialize`). */
  readonly #showsBooleans: boolean;
  readonly #lifecycle: ConnectionLifecycle;
  readonly #server: ServerRoutes;
  readonly #recording: SessionRecording;
  /** Sessions whose changes are reported once, at the end (while `restore` runs). */
  readonly #quiet = new Set<string>();
  /** Set calls in flight per session. */
  readonly #pending = new Map<string, Set<Watch>>();

  constructor(
    options: SandboxAgentClientOptions,
    lifecycle: ConnectionLifecycle,
    server: ServerRoutes,
    recording: SessionRecording,
  ) {
    this.#showsBooleans = options.shows?.booleanOptions ?? CLIENT_DEFAULTS.shows.booleanOptions;
    this.#lifecycle = lifecycle;
    this.#server = server;
    this.#recording = recording;
    lifecycle.events$.subscribe((event) => this.#observe(event));
  }

  /**
   * A stored session's configuration back: re-applied (see `restore`) when the agent opened the
   * session afresh (`result` is its load or creation answer), only taken as known when it never lost
   * it (`result` undefined: nothing is sent). Resolves with what the session has then.
   */
  async restoreStored(
    sessionId: string,
    result: unknown,
    stored: StoredSessionState,
    call?: CallOptions,
  ): Promise<{ state: SessionState; failures: unknown[] }> {
    if (result === undefined) this.adopt(sessionId, stored);
    const failures = result === undefined ? [] : await this.restore(sessionId, result, stored, call);
    return { state: this.known(sessionId), failures };
  }

  /** Records what a `session/new` / `session/load` result says (values that do not parse are ignored). */
  record(sessionId: string, result: unknown): void {
    const answer = (result ?? {}) as Record<string, unknown>;
    const models = v.safeParse(ModelsSchema, answer.models);
    if (models.success) this.#models.set(sessionId, models.output.availableModels.map((model) => model.modelId));
    this.#update(sessionId, storedState(answer));
  }

  /**
   * Gives a session the mode and option values of `stored` (a stored record) where what `result`
   * (its load or creation answer) reports differs: the mode first, then each option the session
   * still offers. The change is reported once, when done. Resolves with what could not be set.
   */
  async restore(sessionId: string, result: unknown, stored: StoredSessionState, call?: CallOptions) {
    const failures: unknown[] = [];
    this.#quiet.add(sessionId);
    try {
      this.record(sessionId, result);
      const wanted = storedState(stored);
      const mode = wanted.modes?.currentModeId;
      const now = () => this.#known.get(sessionId);
      if (mode && now()?.modes?.currentModeId !== mode) {
        await this.setMode(sessionId, mode, call).catch((error: unknown) => failures.push(error));
      }
      for (const option of wanted.configOptions ?? []) {
        const current = now()?.configOptions?.find((candidate) => candidate.id === option.id);
        if (!current || option.currentValue === undefined || current.currentValue === option.currentValue) continue;
        await this.setOption(sessionId, option.id, option.currentValue, call).catch((error) => failures.push(error));
      }
    } finally {
      this.#quiet.delete(sessionId);
      this.#recording.configChanged(sessionId, clone(this.#known.get(sessionId) ?? {}));
    }
    return failures;
  }

  /** Takes what a stored record says as known, without sending anything (the agent still has the session). */
  adopt(sessionId: string, stored: StoredSessionState): void {
    if (!this.#known.has(sessionId)) this.#update(sessionId, storedState(stored));
  }

  /** What is known of the session now. */
  known(sessionId: string): SessionState {
    return clone(this.#known.get(sessionId) ?? {});
  }

  async modes(sessionId: string, call?: CallOptions): Promise<SessionModes | null> {
    const known = this.#known.get(sessionId)?.modes;
    if (known && known.availableModes.length > 0) return clone(known);
    return modesFromOptions(await this.configOptions(sessionId, call)) ?? clone(known ?? null);
  }

  /** The session's options; for a session that reported none, the agent's as the server lists them. */
  async configOptions(sessionId: string, call?: CallOptions): Promise<SessionConfigOption[]> {
    const known = this.#known.get(sessionId)?.configOptions;
    if (known) return clone(known);
    // A contract whose agent list has no options (v2) knows none for such a session: not an error.
    const agentOptions = async () =>
      (await this.#server.getAgent(this.#lifecycle.agent ?? "", { ...call, config: true })).configOptions;
    const listed = await agentOptions().catch((error: unknown) => {
      if (error instanceof UnsupportedFeatureError) return [];
      throw error;
    });
    const fromAgent = v.safeParse(SessionConfigOptionsSchema, listed);
    return fromAgent.success ? fromAgent.output : [];
  }

  /** The call's boundary: one deadline over the check, the set call and what follows it. */
  setMode(sessionId: string, modeId: string, call?: CallOptions): Promise<void> {
    return bounded("setSessionMode", call, (bounds) => this.#sendMode(sessionId, modeId, bounds));
  }

  async #sendMode(sessionId: string, modeId: string, call: CallSignal): Promise<void> {
    const ids = (await this.modes(sessionId, call))?.availableModes.map((mode) => mode.id) ?? [];
    if (ids.length > 0 && !ids.includes(modeId)) {
      const detail = `the session's modes are ${ids.join(", ")}`;
      throw new UnsupportedFeatureError(`setSessionMode("${modeId}")`, detail, ids);
    }
    if (this.#configOnly()) {
      await this.#sendCategory(sessionId, "mode", modeId, call);
      return;
    }
    let reported: boolean;
    try {
      ({ reported } = await this.#watched(sessionId, { category: "mode" }, "session/set_mode", { modeId }, call));
    } catch (error) {
      if (!unsupported(error)) throw error;
      await this.#sendCategory(sessionId, "mode", modeId, call);
      return;
    }
    if (!reported) await this.#stick(sessionId, { category: "mode" }, modeId, call);
  }

  /**
   * The models the session offers: the values of its `model` option (the agent's listed ones for a
   * session that reported none) and the ids its creation or load answer listed; empty when unknown.
   */
  async offeredModels(sessionId: string, call?: CallOptions): Promise<string[]> {
    const option = (await this.configOptions(sessionId, call)).find((candidate) => candidate.category === "model");
    return [...new Set([...(option ? optionValues(option) : []), ...(this.#models.get(sessionId) ?? [])])];
  }

  /** The call's boundary: one deadline over the check, the set call and what follows it. */
  setModel(sessionId: string, modelId: string, call?: CallOptions): Promise<void> {
    return bounded("setSessionModel", call, (bounds) => this.#sendModel(sessionId, modelId, bounds));
  }

  async #sendModel(sessionId: string, modelId: string, call: CallSignal): Promise<void> {
    // Refused before anything is sent, as a mode is: an agent that answers `{}` to any value would
    // otherwise leave an unknown model recorded as the current one.
    const ids = await this.offeredModels(sessionId, call);
    if (ids.length > 0 && !ids.includes(modelId)) {
      const detail = `the agent offers ${ids.join(", ")}`;
      throw new UnsupportedFeatureError(`setSessionModel("${modelId}")`, detail, ids);
    }
    if (this.#configOnly()) {
      await this.#sendCategory(sessionId, "model", modelId, call);
      return;
    }
    let reported: boolean;
    try {
      ({ reported } = await this.#watched(sessionId, { category: "model" }, "session/set_model", { modelId }, call));
    } catch (error) {
      if (!unsupported(error)) throw error;
      await this.#sendCategory(sessionId, "model", modelId, call);
      return;
    }
    if (!reported) await this.#stick(sessionId, { category: "model" }, modelId, call);
  }

  /**
   * Sets the option of `category` (`model`, `mode`, `thought_level`, ...) to `value`; one deadline
   * over finding the option and setting it.
   */
  setCategory(sessionId: string, category: string, value: string, call?: CallOptions): Promise<unknown> {
    const operation = `set the ${category} option`;
    return bounded(operation, call, (bounds) => this.#sendCategory(sessionId, category, value, bounds));
  }

  async #sendCategory(sessionId: string, category: string, value: string, call: CallSignal): Promise<unknown> {
    const options = await this.configOptions(sessionId, call);
    const option = options.find((candidate) => candidate.category === category);
    if (!option) {
      const categories = [...new Set(options.flatMap((o) => (o.category ? [o.category] : [])))].sort();
      const detail = `the session has no ${category} option (categories: ${categories.join(", ") || "none"})`;
      throw new UnsupportedFeatureError(`session ${category}`, detail, categories);
    }
    return this.#sendOption(sessionId, option.id, value, call);
  }

  /**
   * `session/set_config_option`, checked against the options the session reported (when it reported
   * any); one deadline over the set call and what follows it.
   */
  setOption(sessionId: string, configId: string, value: unknown, call?: CallOptions): Promise<unknown> {
    return bounded("setSessionConfigOption", call, (bounds) => this.#sendOption(sessionId, configId, value, bounds));
  }

  async #sendOption(sessionId: string, configId: string, value: unknown, call: CallSignal): Promise<unknown> {
    const options = this.#known.get(sessionId)?.configOptions ?? [];
    const option = options.find((candidate) => candidate.id === configId);
    if (options.length > 0 && !option) {
      const ids = options.map((o) => o.id);
      throw new UnsupportedFeatureError(`config option "${configId}"`, `the session's are ${ids.join(", ")}`, ids);
    }
    const values = option ? optionValues(option) : [];
    if (values.length > 0 && (typeof value !== "string" || !values.includes(value))) {
      const detail = `${configId} takes ${values.join(", ")}`;
      throw new UnsupportedFeatureError(`config option "${configId}" = ${JSON.stringify(value)}`, detail, values);
    }
    // A boolean option takes true or false, sent with `type: "boolean"` (what tells the agent it is
    // no value id); a boolean value for an option the session never reported is sent the same way,
    // by a client that said it takes them.
    const onOff = option?.type === "boolean" || (option === undefined && typeof value === "boolean");
    if (onOff && !this.#takesBooleans()) {
      const detail = "the client said it shows no on/off options (`shows.booleanOptions: false`), so it sends none";
      throw new UnsupportedFeatureError(`config option "${configId}" = ${JSON.stringify(value)}`, detail);
    }
    if (option?.type === "boolean" && typeof value !== "boolean") {
      const detail = `${configId} is on or off (true or false)`;
      const feature = `config option "${configId}" = ${JSON.stringify(value)}`;
      throw new UnsupportedFeatureError(feature, detail, ["true", "false"]);
    }
    const target = { configId, ...(option?.category ? { category: option.category } : {}) };
    const method = "session/set_config_option";
    const params = onOff ? { configId, type: "boolean", value } : { configId, value };
    const { answer, reported } = await this.#watched(sessionId, target, method, params, call);
    const answered = v.safeParse(SessionConfigOptionsSchema, (answer as { configOptions?: unknown })?.configOptions);
    if (answered.success && answered.output.length > 0) {
      // The agent's answer says what every option now is, the mode included.
      this.#update(sessionId, { configOptions: answered.output });
      const mode = answered.output.find((candidate) => candidate.category === "mode")?.currentValue;
      if (option?.category === "mode" && typeof mode === "string") this.#setMode(sessionId, mode);
    } else if (!reported) {
      await this.#stick(sessionId, target, value, call);
    }
    return answer;
  }

  /**
   * Whether the client may send an on/off value: the protocol allows `type: "boolean"` only from a
   * client whose `initialize` said it takes boolean options. A version that has no place to say so
   * (the v2 draft) takes them from any client. (A session known here came after a connect.)
   */
  #takesBooleans(): boolean {
    return this.#showsBooleans || this.#lifecycle.traits?.announcesShows === false;
  }

  /**
   * Whether modes and models are set only through config options (the negotiated version's traits,
   * read after the call's first step, which connected).
   */
  #configOnly(): boolean {
    return this.#lifecycle.traits?.configOptionsOnly === true;
  }

  /** Sends a set call, noting whether the agent reports `target` (an update event) before it is answered. */
  async #watched(
    sessionId: string,
    target: Target,
    method: string,
    params: Record<string, unknown>,
    call: CallSignal,
  ): Promise<{ answer: unknown; reported: boolean }> {
    const watch: Watch = { ...target, reported: false };
    const watches = this.#pending.get(sessionId) ?? new Set<Watch>();
    this.#pending.set(sessionId, watches);
    watches.add(watch);
    try {
      const sent = { sessionId, ...params };
      const answer = await this.#lifecycle.with(sandboxName(method), call, (c, bounds) => c.call(method, sent, bounds));
      return { answer, reported: watch.reported };
    } finally {
      watches.delete(watch);
      if (watches.size === 0) this.#pending.delete(sessionId);
    }
  }

  /**
   * Records a value the agent took without saying so. A session with no options of its own first
   * takes the ones the getters showed for it (the agent's, as the server lists them), so that the
   * value has an option to land in.
   */
  async #stick(sessionId: string, target: Target, value: unknown, call: CallSignal): Promise<void> {
    if (!this.#known.get(sessionId)?.configOptions) {
      // The set call succeeded; a failure to list is no reason to fail it now. The call's deadline
      // passing (or its abort) is: the call ends as any other step would end it.
      const listed = await this.configOptions(sessionId, call).catch((error: unknown) => {
        if (call.signal?.aborted) throw error;
        return [];
      });
      if (!this.#known.get(sessionId)?.configOptions && listed.length > 0) {
        this.#update(sessionId, { configOptions: listed });
      }
    }
    const options = this.#known.get(sessionId)?.configOptions ?? [];
    const option = options.find((candidate) =>
      target.configId !== undefined ? candidate.id === target.configId : candidate.category === target.category,
    );
    if (option) this.#setValue(sessionId, option.id, value);
    if ((option?.category ?? target.category) === "mode" && typeof value === "string") this.#setMode(sessionId, value);
  }

  #observe(event: SandboxEvent): void {
    if (event.kind === "session-ended" && event.sessionId) {
      this.#known.delete(event.sessionId);
      this.#models.delete(event.sessionId);
    }
    if (event.kind !== "update") return;
    const { update, sessionId } = event;
    if (update.sessionUpdate === "current_mode_update") {
      this.#reported(sessionId, (watch) => watch.category === "mode");
      this.#setMode(sessionId, update.currentModeId);
    }
    if (update.sessionUpdate === "config_option_update") {
      const reported = v.safeParse(SessionConfigOptionsSchema, update.configOptions);
      const options = reported.success ? reported.output : [];
      this.#reported(sessionId, (watch) =>
        options.some(
          (option) => option.id === watch.configId || (!!watch.category && option.category === watch.category),
        ),
      );
      this.record(sessionId, { configOptions: update.configOptions });
      // An agent that reports its mode as an option only (Claude Code's adapter answers set_mode so)
      // moves the session's current mode with it: the modes and the mode option agree.
      const mode = options.find((option) => option.category === "mode")?.currentValue;
      const modes = this.#known.get(sessionId)?.modes;
      if (typeof mode === "string" && modes && modes.currentModeId !== mode) this.#setMode(sessionId, mode);
    }
  }

  /** Marks the session's set calls in flight whose setting the agent has just reported. */
  #reported(sessionId: string, covers: (watch: Watch) => boolean): void {
    for (const watch of this.#pending.get(sessionId) ?? []) if (covers(watch)) watch.reported = true;
  }

  #setValue(sessionId: string, configId: string, value: unknown): void {
    const options = this.#known.get(sessionId)?.configOptions;
    if (!options?.some((option) => option.id === configId)) return;
    const set = (option: SessionConfigOption) => (option.id === configId ? { ...option, currentValue: value } : option);
    const configOptions = options.map(set);
    this.#update(sessionId, { configOptions });
  }

  #setMode(sessionId: string, currentModeId: string): void {
    const known = this.#known.get(sessionId);
    // A session that listed no modes of its own has those of its mode option (when it has one).
    const modes = known?.modes?.availableModes.length ? known.modes : modesFromOptions(known?.configOptions ?? []);
    this.#update(sessionId, { modes: { ...(modes ?? { availableModes: [] }), currentModeId } });
    const modeOption = this.#known.get(sessionId)?.configOptions?.find((option) => option.category === "mode");
    if (modeOption && modeOption.currentValue !== currentModeId) {
      this.#setValue(sessionId, modeOption.id, currentModeId);
    }
  }

  #update(sessionId: string, change: Known): void {
    const known = { ...this.#known.get(sessionId), ...change };
    this.#known.set(sessionId, known);
    if (!this.#quiet.has(sessionId)) this.#recording.configChanged(sessionId, clone(known));
  }
}
