// Scenario 2b for an instruction counter (bench/count-request.sh runs it under callgrind): one contender
// makes 1,000 warm-up requests and then `count` sequential requests against the in-process fake server
// with its echo (`requestCost`, as `npm run bench` clocks it), nothing else. The fake server is in the
// same process, so its work is counted too, the same for every contender. Run at two counts, the
// difference in instructions over the difference in requests is what one more request costs: start-up,
// compilation and the warm-up cancel out.
//
//   node --import tsx --expose-gc bench/request-cost-instructions.ts ours|upstream|raw <count>
import { contenders, CONTENDERS, type ContenderName } from "./contenders/index.js";
import { requestCost } from "./scenarios/request-cost.js";

const [name = "", countText = ""] = process.argv.slice(2);
const count = Number(countText);
if (!CONTENDERS.includes(name as ContenderName) || !Number.isInteger(count) || count <= 0) {
  console.error("usage: request-cost-instructions.ts ours|upstream|raw <count>");
  process.exit(2);
}
const result = await requestCost(contenders[name as ContenderName], count);
console.log(`${name} ${count}: ${((result.cpuMs * 1000) / count).toFixed(1)} µs CPU/request`);
process.exit(0);
