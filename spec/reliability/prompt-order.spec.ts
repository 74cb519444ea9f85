/**
 * Prompt ordering on a server without a response echo (the v2 contract): every update the agent
 * pushed before answering a turn reaches the client's event stream before that turn's `prompt()`
 * resolves, even though the answer leaves the server ahead of them (the stream has a writer task
 * of its own). 50 updates per turn, through `AcpHttpClient` (`envelopes$`) and
 * `SandboxAgentClient` (`session(id).events$`). bench/prompt-order.ts runs the same turns 500 at
 * a time, idle and under CPU hogs.
 */
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { runBurstTurns, startBurstServer, UPDATES_PER_TURN, type TurnClient } from "../support/burst-turns.js";
import type { V2ContractServer } from "../support/v2-contract-server.js";
import { report } from "./support/helpers.js";

const TURNS = 80;

let server: V2ContractServer;

beforeAll(async () => {
  server = await startBurstServer();
});

afterAll(async () => {
  await server?.stop();
});

describe.each<TurnClient>(["AcpHttpClient", "SandboxAgentClient"])(
  "a turn's answer on a server without a response echo, through %s",
  (kind) => {
    it(`resolves prompt() only after all ${UPDATES_PER_TURN} updates the turn pushed before it, in each of ${TURNS} turns`, async () => {
      const tally = await runBurstTurns(server.baseUrl, kind, TURNS);
      report(`prompt order (${kind})`, {
        turns: tally.turns,
        early: tally.early,
        fewestDelivered: tally.fewestDelivered,
        msPerTurn: Math.round((tally.ms / tally.turns) * 10) / 10,
      });
      expect(tally.turns).toBe(TURNS);
      expect(tally.earlyTurns).toEqual([]);
      expect(tally.fewestDelivered).toBe(UPDATES_PER_TURN);
    }, 60_000);
  },
);
