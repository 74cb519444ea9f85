// Scenario 9b for an instruction counter: `count` sequential `_test/ping` round trips of one contender
// against the official SDK's AcpServer, nothing else. CPU time is noisy on a shared machine; instructions
// counted by callgrind are not. The server runs in another process (`serve`), so only the client is
// counted. Run the client at two counts and divide the difference in instructions by the difference in
// requests: start-up, initialize and warm-up cancel out. Both counts must be past V8's tiering (4,000 and
// 16,000 over WebSocket): below that the difference is mostly TurboFan compiling. Bundled, so tsx's own
// work and its per-closure `__name` calls are not counted; fixed seeds and one thread for repeatability.
//
//   node --import tsx bench/request-instructions.ts serve            # prints the server's base URL
//   npx esbuild bench/request-instructions.ts --bundle --platform=node --format=esm --packages=external \
//     --outfile=bench/.request-instructions.mjs
//   valgrind --tool=callgrind --smc-check=all-non-file node --single-threaded --hash-seed=1 --random-seed=1 \
//     --min-semi-space-size=16 --max-semi-space-size=16 bench/.request-instructions.mjs \
//     ours|official|raw ws|http <count> <baseUrl>
//
// With `--dump-instr=yes` and node's `--perf-basic-prof`, JIT code can be named from /tmp/perf-<pid>.map.
import { openPeer, startAcpSdkServer, type OfficialContender } from "./scenarios/official-sdk.js";
import type { AcpSdkServer } from "../spec/support/acp-sdk-server.js";

const [name = "", transportText = "", countText = "", baseUrl = ""] = process.argv.slice(2);

if (name === "serve") {
  const server = await startAcpSdkServer();
  console.log(server.baseUrl);
} else {
  const contenders: readonly string[] = ["ours", "official", "raw"];
  const count = Number(countText);
  const transport = transportText === "ws" ? "websocket" : transportText === "http" ? "http" : undefined;
  const valid = contenders.includes(name) && transport && Number.isInteger(count) && count >= 0;
  if (!valid || !baseUrl.startsWith("http")) {
    console.error("usage: request-instructions.ts serve | ours|official|raw ws|http <count> <baseUrl>");
    process.exit(2);
  }
  // openPeer only reads the two URLs of the server it is given.
  const server = { baseUrl, wsUrl: `${baseUrl.replace(/^http/, "ws")}/acp` } as AcpSdkServer;
  const peer = await openPeer(name as OfficialContender, transport, server);
  const started = process.cpuUsage();
  for (let i = 0; i < count; i++) await peer.call("_test/ping", { seq: i });
  const cpu = process.cpuUsage(started);
  await peer.close();
  const perRequest = count ? ((cpu.user + cpu.system) / count).toFixed(1) : "-";
  console.log(`${name} ${transportText} ${count}: ${perRequest} µs CPU/request`);
  process.exit(0);
}
