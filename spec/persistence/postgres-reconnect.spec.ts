// A worker's database connections killed mid-turn (pg_terminate_backend, several times, while a
// 60-update turn streams from the real 0.4.2 server): postgresStore reconnects and retries, and
// the store ends with every update once, in order, under the worker's lease generation; no store
// error, no lease lost.
import { firstValueFrom, filter, timeout } from "rxjs";
import type pg from "pg";
import { postgresStore, type PostgresStore } from "../../lib/postgres/index.js";
import { SandboxAgentClient, type StoreError } from "../../lib/sandbox/index.js";
import type { LeaseLost } from "../../lib/sandbox/persistence/index.js";
import { POSTGRES, startPostgresCluster, type PostgresCluster } from "../support/postgres-cluster.js";
import { startSandboxAgent, type SandboxAgentServer } from "../support/sandbox-agent-server.js";
import { describeWith } from "../support/system-component.js";
import { allEvents, chunkText } from "./client-helpers.js";

const describePg = describeWith([POSTGRES]);
const UPDATES = 60;
const SCHEMA = "reconnect";

describePg("postgresStore when its connections are killed mid-turn", () => {
  let cluster: PostgresCluster;
  let server: SandboxAgentServer;
  let admin: pg.Pool;
  const clients: SandboxAgentClient[] = [];
  const stores: PostgresStore[] = [];
  beforeAll(async () => {
    [cluster, server] = await Promise.all([startPostgresCluster(), startSandboxAgent()]);
    admin = cluster.pool(2);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.disconnect().catch(() => undefined);
    for (const store of stores) await store.close().catch(() => undefined);
    await server?.stop();
    await cluster?.stop();
  });

  it("reconnects and stores every update once, in order, with the lease kept", async () => {
    const url = (name: string) => `${cluster.connectionString}?application_name=${name}`;
    const producerStore = postgresStore({ connectionString: url("producer"), schema: SCHEMA });
    const workerStore = postgresStore({ connectionString: url("worker"), schema: SCHEMA });
    stores.push(producerStore, workerStore);
    const producer = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store: producerStore });
    clients.push(producer);
    await producer.ready;
    const { sessionId } = await producer.newSession();
    await producer.disconnect();

    const worker = new SandboxAgentClient({ baseUrl: server.baseUrl, agent: "mock", store: workerStore });
    clients.push(worker);
    const errors: StoreError[] = [];
    const lost: LeaseLost[] = [];
    worker.storeErrors$.subscribe((error) => errors.push(error));
    worker.leaseLost$.subscribe((event) => lost.push(event));
    await worker.ready;
    const [resumed] = await worker.restoreSessions({ claim: { ttlMs: 5000 } });
    expect(resumed?.localId).toBe(sessionId);

    // Kill the worker's backends after 10, 25 and 40 updates of the turn have arrived.
    const terminated: number[] = [];
    const killAt = new Set([10, 25, 40]);
    let seen = 0;
    const terminations: Array<Promise<unknown>> = [];
    const sub = worker.events$.subscribe((event) => {
      if (event.kind !== "update" || event.update.sessionUpdate !== "agent_message_chunk") return;
      seen += 1;
      if (!killAt.has(seen)) return;
      terminations.push(
        admin
          .query<{ pid: number }>(
            // Materialized first: in one WHERE, pg_terminate_backend could run on rows (this very
            // connection) before the name filter does.
            `WITH w AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE application_name = 'worker')
             SELECT pg_terminate_backend(pid) FROM w`,
          )
          .then(({ rows }) => terminated.push(rows.length)),
      );
    });
    const turnDone = firstValueFrom(worker.events$.pipe(filter(() => seen >= UPDATES), timeout(30_000)));
    const outcome = await worker.prompt(sessionId, `slowchunks ${UPDATES} 30`);
    sub.unsubscribe();
    expect(outcome.stopReason).toBe("end_turn");
    await turnDone.catch(() => undefined);
    await Promise.all(terminations);
    expect(terminated).toHaveLength(3);
    expect(terminated.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

    await worker.releaseSession(sessionId); // flushes the recorder first
    const events = await allEvents(workerStore, sessionId);
    const texts = events.map((e) => chunkText(e.payload)).filter((text) => text !== undefined);
    expect(texts).toEqual(Array.from({ length: UPDATES }, (_, i) => `c${i}`));
    expect(events.map((e) => e.eventIndex)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const generations = await admin.query<{ generation: string }>(
      `SELECT DISTINCT generation FROM ${SCHEMA}.events WHERE session_id = $1`,
      [sessionId],
    );
    expect(generations.rows).toEqual([{ generation: "1" }]);
    expect(errors.map((error) => error.message)).toEqual([]);
    expect(lost).toEqual([]);
  }, 120_000);
});
