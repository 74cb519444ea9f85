// What the sandbox layer does differently on each ACP version, as data (the protocol layer keeps its
// own, `PROTOCOL_PROFILES`). A connection reads the record of the version its protocol client speaks,
// the lifecycle keeps the one its last connect negotiated; nothing else in the layer compares versions.

/** One ACP version's differences in the sandbox layer. */
export interface VersionTraits {
  /** The ACP version: 1 (stable), or 2 (the v2 draft, experimental). */
  readonly version: 1 | 2;
  /**
   * `initialize` tells the agent what the client shows (the option `shows`, as v1's
   * `clientCapabilities.session`); the v2 draft has no such capabilities. Read from the version asked
   * for, since it shapes the `initialize` that negotiates.
   */
  readonly announcesShows: boolean;
  /**
   * `session/prompt`'s answer only acknowledges the prompt and the turn ends on its session's `idle`:
   * the prompt goes through the protocol client's typed `prompt`, which waits for it (v2). On v1 the
   * answer is the turn's end.
   */
  readonly promptEndsOnIdle: boolean;
  /**
   * An existing session is reopened with `session/resume` (a load is a resume with `replayFrom`): the
   * v2 draft has no `session/load`.
   */
  readonly reopensWithResume: boolean;
  /** Modes and models are set only through config options: the v2 draft has no `set_mode` or `set_model`. */
  readonly configOptionsOnly: boolean;
}

/** Each version's traits, by number. */
export const VERSION_TRAITS: Readonly<Record<1 | 2, VersionTraits>> = {
  1: { version: 1, announcesShows: true, promptEndsOnIdle: false, reopensWithResume: false, configOptionsOnly: false },
  2: { version: 2, announcesShows: false, promptEndsOnIdle: true, reopensWithResume: true, configOptionsOnly: true },
};
