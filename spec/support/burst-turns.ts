/**
 * Prompt turns against a v2-style server (no response echo) whose agent writes a burst of updates
 * on the session's stream and then answers the POST: how many turns' `prompt()` resolved before
 * all of that turn's updates had reached the client's event stream. Used by the ordering spec and
 * by bench/prompt-order.ts.
 */
import { tmpdir } from "node:os";
import { AcpHttpClient } from "../../lib/acp-http/index.js";
import { SandboxAgentClient } from "../../lib/sandbox/index.js";
import { messageChunk } from "./acp-http-helpers.js";
import { SANDBOX_AGENT_V2 } from "./sandbox-agent-transport.js";
import { startV2ContractServer, type V2ContractServer } from "./v2-contract-server.js";

/** Updates the agent writes per turn. */
export const UPDATES_PER_TURN = 50;

export interface TurnTally {
  turns: number;
  /** Turns whose `prompt()` resolved before all of their updates were delivered. */
  early: number;
  /** The fewest updates of one turn delivered when its `prompt()` resolved. */
  fewestDelivered: number;
  /** Per early turn: its number (from 1) and how many of its updates had arrived. */
  earlyTurns: Array<{ turn: number; delivered: number }>;
  /** Wall-clock time of the turns, ms. */
  ms: number;
}

export type TurnClient = "AcpHttpClient" | "SandboxAgentClient";

/**
 * The v2 contract server with its mock agent pushing chunks back to back (no delay between them):
 * a prompt of UPDATES_PER_TURN - 1 words gets UPDATES_PER_TURN chunks (`mock:` and one per word),
 * all pushed to the stream before the POST is answered. The stream has a writer task of its own
 * (`streamWriterDelayMs`, default 2 ms), so the answer leaves first and
 * the turn's updates follow it, as on a server that feeds its streams from a channel.
 */
export function startBurstServer(streamWriterDelayMs = 2): Promise<V2ContractServer> {
  return startV2ContractServer({ mockChunkDelayMs: 0, streamWriterDelayMs });
}

function promptText(turn: number): string {
  return Array.from({ length: UPDATES_PER_TURN - 1 }, (_, i) => `t${turn}w${i}`).join(" ");
}

const agentMeta = { "sandboxagent.dev": { agent: "mock" } };

/** Runs `turns` prompts in one session through `kind` and counts the ones that resolved early. */
export async function runBurstTurns(baseUrl: string, kind: TurnClient, turns: number): Promise<TurnTally> {
  return kind === "AcpHttpClient" ? acpTurns(baseUrl, turns) : sandboxTurns(baseUrl, turns);
}

/**
 * Runs `turns` prompts in turn (`prompt(turn)`), `delivered()` being the updates of the session
 * counted so far, and tallies the turns whose prompt resolved before all of their updates arrived.
 */
async function timedTurns(
  turns: number,
  delivered: () => number,
  prompt: (turn: number) => Promise<unknown>,
): Promise<TurnTally> {
  let fewest = Infinity;
  const earlyTurns: TurnTally["earlyTurns"] = [];
  const start = performance.now();
  for (let turn = 1; turn <= turns; turn++) {
    const before = delivered();
    await prompt(turn);
    const arrived = delivered() - before;
    fewest = Math.min(fewest, arrived);
    if (arrived < UPDATES_PER_TURN) earlyTurns.push({ turn, delivered: arrived });
    // The rest of an early turn's updates would count for the next one: wait for them (bounded).
    await settleCount(() => delivered() - before >= UPDATES_PER_TURN);
  }
  const ms = performance.now() - start;
  return { turns, early: earlyTurns.length, fewestDelivered: fewest, earlyTurns, ms };
}

/** `responseEcho` left at its default ("auto"): the server never echoes, so answers are held as for `false`. */
async function acpTurns(baseUrl: string, turns: number): Promise<TurnTally> {
  const client = new AcpHttpClient({ baseUrl, ...SANDBOX_AGENT_V2, closeTimeoutMs: 1000 });
  try {
    await client.initialize({ _meta: agentMeta });
    const { sessionId } = await client.newSession({ cwd: tmpdir(), mcpServers: [], _meta: agentMeta });
    let delivered = 0;
    const subscription = client.envelopes$.subscribe((envelope) => {
      if (messageChunk(envelope)?.sessionId === sessionId) delivered++;
    });
    try {
      return await timedTurns(turns, () => delivered, (turn) =>
        client.prompt({ sessionId, prompt: [{ type: "text", text: promptText(turn) }] }),
      );
    } finally {
      subscription.unsubscribe();
    }
  } finally {
    await client.disconnect();
  }
}

async function sandboxTurns(baseUrl: string, turns: number): Promise<TurnTally> {
  const client = new SandboxAgentClient({ baseUrl, agent: "mock" });
  try {
    await client.ready;
    const { sessionId } = await client.newSession();
    let delivered = 0;
    const subscription = client.session(sessionId).events$.subscribe((event) => {
      if (event.kind === "update" && event.update.sessionUpdate === "agent_message_chunk") delivered++;
    });
    try {
      return await timedTurns(turns, () => delivered, (turn) => client.prompt(sessionId, promptText(turn)));
    } finally {
      subscription.unsubscribe();
    }
  } finally {
    await client.disconnect();
  }
}

/** Waits until `done()` (checked every 5 ms), at most 5 s: an early turn's stragglers arrive. */
async function settleCount(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
}
