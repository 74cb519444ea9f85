import type { Subject } from "rxjs";
import { consoleLogger } from "../acp-http/index.js";
import { agentHandlers } from "./agent-handlers.js";
import type { SandboxEvent } from "./events.js";
import { PermissionDesk } from "./permission-desk.js";
import { ConnectionLifecycle, type LifecycleDeps } from "./lifecycle.js";
import type { ClientSettings } from "./client-options.js";
import { SessionRecording } from "./persistence/client-side.js";
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
 * Builds a client's connection side from its options: every connection it makes pushes its session
 * events into `events` and is tapped by the recording, so the store sees each session it opens.
 */
export function clientConnection(
  options: ClientSettings,
  events: Subject<SandboxEvent>,
  serverApi: LifecycleDeps["serverApi"],
): ClientConnection {
  const logger = options.debug === true ? consoleLogger("sandbox-agent") : options.debug || undefined;
  const recording = new SessionRecording(options.store, options.replay);
  const desk = new PermissionDesk();
  const lifecycle = new ConnectionLifecycle({
    options,
    events,
    serverApi,
    handlers: agentHandlers(options, { desk, answered: (note) => recording.note(note) }),
    logger,
    tap: (connection) => recording.tap(connection),
  });
  return { lifecycle, recording, logger, desk };
}
