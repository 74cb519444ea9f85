// The one shape every contender is driven through, so a scenario is written once and the three
// clients differ only in what they do per message.

export type ContenderName = "ours" | "upstream" | "raw";

export const CONTENDERS: readonly ContenderName[] = ["ours", "upstream", "raw"];

/** A listener for `session/update` notifications; gets the notification's `params`. */
export type UpdateListener = (params: unknown) => void;

export interface ConnectOptions {
  baseUrl: string;
  /** Endpoint path, e.g. `/v1/acp/<serverId>`. */
  path: string;
  /** Sent with the first POST: the 0.4.2 server creates the agent process from it. */
  bootstrapQuery?: Record<string, string>;
  /** An in-process server instead of the network. */
  fetch?: typeof globalThis.fetch;
  /**
   * Each listener is one independent consumer of the inbound stream (a subscriber, for ours): the
   * fan-out scenario varies how many there are.
   */
  listeners?: UpdateListener[];
}

/** One connection as a scenario sees it. */
export interface BenchConnection {
  /** Sends one request and resolves with its `result`. */
  call(method: string, params: Record<string, unknown>): Promise<unknown>;
  /** Whether the GET event stream has been opened (the connection is fully set up). */
  readonly streamOpen: boolean;
  /** Closes the connection; the DELETE is bounded (2 s), as every contender does it. */
  close(): Promise<void>;
}

export interface Contender {
  readonly name: ContenderName;
  /** Creates the client; the first `call` creates the connection on the server and opens the stream. */
  connect(options: ConnectOptions): BenchConnection;
}
