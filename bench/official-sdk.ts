// Scenario 9 (bench/scenarios/official-sdk.ts): ours vs the official ACP SDK 2.4.0 client vs raw.
// Standalone: `node --import tsx --expose-gc bench/official-sdk.ts`; bench/run.ts runs it as
// BENCH_ONLY=9. Knobs: BENCH_ROUNDS (default 3), BENCH_SCALE (default 1).
import { median, rotate } from "./support/measure.js";
import { buildBody } from "./support/synthetic.js";
import {
  inboundRfd,
  openPeer,
  roundTrips,
  startAcpSdkServer,
  type OfficialContender,
  type Transport,
} from "./scenarios/official-sdk.js";

const CONTENDERS: readonly OfficialContender[] = ["ours", "official", "raw"];
const num = (name: string, fallback: number): number => (Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback);
const ROUNDS = Math.floor(num("BENCH_ROUNDS", 3));
const SCALE = num("BENCH_SCALE", 1);
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

interface Line {
  metric: string;
  values: Partial<Record<OfficialContender, number>>;
  higherIsBetter: boolean;
  digits: number;
}

const ratio = (line: Line, other: OfficialContender): string => {
  const ours = line.values.ours;
  const them = line.values[other];
  if (ours === undefined || them === undefined || ours === 0 || them === 0) return "–";
  return `${(line.higherIsBetter ? ours / them : them / ours).toFixed(2)}×`;
};

export function renderOfficialTable(lines: readonly Line[]): string {
  const fmt = (value: number | undefined, digits: number) =>
    value === undefined ? "–" : value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const out = ["| 9 | metric | ours | official SDK 2.4.0 | raw | ours vs official | ours vs raw |", "|---|---|---:|---:|---:|---:|---:|"];
  for (const line of lines) {
    const [o, s, r] = CONTENDERS.map((name) => fmt(line.values[name], line.digits));
    out.push(`| 9 | ${line.metric} | ${o} | ${s} | ${r} | ${ratio(line, "official")} | ${ratio(line, "raw")} |`);
  }
  return out.join("\n");
}

export async function officialSdkScenario(log: (line: string) => void = console.log): Promise<Line[]> {
  const lines: Line[] = [];
  const body = buildBody(scaled(50_000));
  const inbound: Record<OfficialContender, number[]> = { ours: [], official: [], raw: [] };
  const inboundRate: Record<OfficialContender, number[]> = { ours: [], official: [], raw: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of rotate(CONTENDERS, round)) {
      const result = await inboundRfd(name, body);
      inbound[name].push((result.cpuMs * 1000) / result.envelopes);
      inboundRate[name].push(result.envelopes / (result.wallMs / 1000));
      log(`  9a round ${round + 1} ${name}: ${((result.cpuMs * 1000) / result.envelopes).toFixed(2)} µs/envelope`);
    }
  }
  const pick = (samples: Record<OfficialContender, number[]>) =>
    Object.fromEntries(CONTENDERS.filter((n) => samples[n].length > 0).map((n) => [n, median(samples[n])]));
  lines.push({ metric: "inbound CPU µs / envelope (injected fetch)", values: pick(inbound), higherIsBetter: false, digits: 2 });
  lines.push({ metric: "inbound envelopes / s", values: pick(inboundRate), higherIsBetter: true, digits: 0 });

  const server = await startAcpSdkServer();
  try {
    for (const transport of ["http", "websocket"] as Transport[]) {
      for (const [label, count, inFlight] of [
        ["sequential", scaled(2000), 1],
        ["64 in flight", scaled(10_000), 64],
      ] as const) {
        const rates: Record<OfficialContender, number[]> = { ours: [], official: [], raw: [] };
        for (let round = 0; round < ROUNDS; round++) {
          for (const name of rotate(CONTENDERS, round)) {
            const peer = await openPeer(name, transport, server);
            const result = await roundTrips(peer, count, inFlight);
            await peer.close();
            rates[name].push(result.requests / (result.wallMs / 1000));
            log(`  9b ${transport} ${label} round ${round + 1} ${name}: ${rates[name].at(-1)?.toFixed(0)} req/s`);
          }
        }
        lines.push({ metric: `AcpServer ${transport}, ${label}, requests / s`, values: pick(rates), higherIsBetter: true, digits: 0 });
      }
    }
  } finally {
    await server.stop();
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  officialSdkScenario().then(
    (lines) => {
      console.log(`\n${renderOfficialTable(lines)}`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
