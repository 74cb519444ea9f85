import { agentHandlers } from "./agent-handlers.js";
import { PermissionDesk } from "./permission-desk.js";
import { ConnectionLifecycle, type LifecycleDeps } from "./lifecycle.js";
import type { ClientSettings } from "./client-options.js";
import { SessionRecording } from "./persistence/session-recording.js";
import type { Logger } from "./call-options.js";

/** What a client's session methods run on: its connection lifecycle, the store's recording of it, the logger. */
export interface ClientConnection {
  lifecycle: ConnectionLifecycle;
  recording: SessionRecording;
  logger: Logger | undefined;
  /** Where permission requests wait with `onPermissionRequest: "ask"`. */
  desk: PermissionDesk;
}

/**
 * Builds a client's connection side from its options: every connection it makes is tapped by the
 * recording, so the store sees each session it opens; the lifecycle's `events$` are the client's.
 */
export function clientConnection(
  options: ClientSettings,
  serverApi: LifecycleDeps["serverApi"],
): ClientConnection {
  const { logger } = options;
  const recording = new SessionRecording(options.store, options.replay);
  const desk = new PermissionDesk();
  const lifecycle = new ConnectionLifecycle({
    options,
    serverApi,
    handlers: agentHandlers(options, { desk, answered: (note) => recording.note(note) }),
    logger,
    tap: (connection) => recording.tap(connection),
  });
  return { lifecycle, recording, logger, desk };
}
