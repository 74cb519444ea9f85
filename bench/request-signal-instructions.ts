// What a POST's own abort signal costs a fetch on Node 20, apart from everything else, for an
// instruction counter: `count` times what the injected fetch of scenario 2b does with a request
// (undici's `new Request(url, init)`, its body read), with the signal as `variant` says. Run under
// callgrind at two counts and divide the difference (bench/README.md, "The request path in instructions").
//
//   node --expose-gc bench/request-signal-instructions.ts none|own|made|shared <count>
//
// none: no signal; own: a new AbortController per request, its signal given (what the correlator
// does); made: the controller made but not given (its own cost); shared: one signal for all requests.
const [variant = "", countText = ""] = process.argv.slice(2);
const count = Number(countText);
if (!["none", "own", "made", "shared"].includes(variant) || !Number.isInteger(count) || count <= 0) {
  console.error("usage: request-signal-instructions.ts none|own|made|shared <count>");
  process.exit(2);
}
const shared = new AbortController();
const url = "http://bench.invalid/v1/acp/cost";
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "_bench/ping", params: { seq: 1 } });
async function once(): Promise<void> {
  const headers = { "content-type": "application/json", accept: "application/json" };
  const init: RequestInit = { method: "POST", body, headers };
  if (variant === "own") init.signal = new AbortController().signal;
  else if (variant === "made") void new AbortController();
  else if (variant === "shared") init.signal = shared.signal;
  const request = new Request(url, init);
  await request.text();
}
// Warm-up, then the counted loop; a full collection between them, as the bench does before a round.
for (let i = 0; i < 1000; i++) await once();
(globalThis as { gc?: () => void }).gc?.();
for (let i = 0; i < count; i++) await once();
process.exit(0);
