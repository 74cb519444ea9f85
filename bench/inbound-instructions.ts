// Scenario 1 for an instruction counter (bench/count-inbound.sh runs it under callgrind): one contender
// consumes the first `count` envelopes of the scenario-1 stream, nothing else. CPU time is noisy on a
// shared machine; instructions counted by callgrind are not. Run at two counts, the difference in
// instructions over the difference in envelopes is what one more envelope costs: start-up, compilation
// and the initialize round trip cancel out, and so does building the body (always `size` envelopes,
// whatever `count` is). `rounds` consumes it that many times, a new client each time, as the bench's
// rounds do: 3 rounds against 1 gives the cost of a warm round, its fixed costs included.
//
//   node --import tsx --expose-gc bench/inbound-instructions.ts ours|raw <count> [size=100000] [rounds=1]
import { Buffer } from "node:buffer";
import { ours } from "./contenders/ours.js";
import { raw } from "./contenders/raw.js";
import { consume } from "./scenarios/inbound-cost.js";
import { buildBody, type SyntheticBody } from "./support/synthetic.js";

const [name = "ours", countText = "20000", sizeText = "100000", roundsText = "1"] = process.argv.slice(2);
const contender = name === "raw" ? raw : name === "ours" ? ours : undefined;
const count = Number(countText);
const size = Number(sizeText);
const rounds = Number(roundsText);
const valid = [count, size, rounds].every((n) => Number.isInteger(n) && n > 0) && count <= size;
if (!contender || !valid) {
  console.error("usage: inbound-instructions.ts ours|raw <count> [size=100000] [rounds=1]");
  process.exit(2);
}

/** The first `count` frames of `body`. Every frame end is found, whatever `count`: the same work at any count. */
function prefix(body: SyntheticBody, count: number): SyntheticBody {
  const bytes = Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength);
  const ends: number[] = [];
  for (let at = bytes.indexOf("\n\n"); at !== -1; at = bytes.indexOf("\n\n", at + 2)) ends.push(at + 2);
  if (ends.length !== body.envelopes) throw new Error(`found ${ends.length} frames, expected ${body.envelopes}`);
  return { bytes: body.bytes.subarray(0, ends[count - 1]), envelopes: count };
}

const body = prefix(buildBody(size), count);
for (let round = 1; round <= rounds; round++) {
  const { cpuMs } = await consume(contender, body);
  console.log(`${name} round ${round}, ${count} envelopes: ${((cpuMs * 1000) / count).toFixed(2)} µs CPU/envelope`);
}
