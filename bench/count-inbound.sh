#!/usr/bin/env bash
# Scenario 1 counted in instructions (valgrind's callgrind), which other work on the machine does not
# change: what one envelope costs ours and raw, and the ratio. See bench/README.md, "Counting instructions".
#
#   bench/count-inbound.sh            # steady state: 20,000 and 100,000 envelopes, ~6 min
#   bench/count-inbound.sh rounds     # also warm 50,000-envelope rounds as `npm run bench` has them, ~12 min more
set -euo pipefail
cd "$(dirname "$0")/.."
# Bundled so no loader thread or TypeScript compilation runs alongside; packages stay external, resolved
# from node_modules (where the bundle is written, out of the source tree).
mkdir -p node_modules/.cache
bundle=$(mktemp -p node_modules/.cache inbound-instructions.XXXXXX --suffix=.mjs)
trap 'rm -f "$bundle"' EXIT
node_modules/.bin/esbuild bench/inbound-instructions.ts --bundle --platform=node --format=esm --target=node20 \
  --packages=external --log-level=warning --outfile="$bundle"

# Single-threaded V8, fixed seeds and a fixed young generation: the same count on every run (±0.01 %).
count() { # contender envelopes size rounds [gc]: instructions of one process
  local toggle=()
  [[ ${5:-} == gc ]] && toggle=(--toggle-collect='v8::internal::GCExtension::GC*')
  valgrind --tool=callgrind "${toggle[@]}" --callgrind-out-file=/dev/null \
    node --single-threaded --min-semi-space-size=16 --max-semi-space-size=16 --hash-seed=1 --random-seed=1 \
    --expose-gc "$bundle" "$1" "$2" "$3" "$4" 2>&1 >/dev/null | awk '/Collected/ { print $4 }'
}

declare -A per
for who in ours raw; do
  small=$(count "$who" 20000 100000 1)
  large=$(count "$who" 100000 100000 1)
  per[$who]=$(( (large - small) / 80000 ))
  echo "$who: ${per[$who]} instructions per envelope (steady state)"
done
echo "ours/raw: $(awk "BEGIN { printf \"%.3f\", ${per[ours]} / ${per[raw]} }") (steady state)"

[[ ${1:-} == rounds ]] || exit 0
# Two more rounds of 50,000 (a new client each, as the bench's rounds), less the full collections the
# bench runs before each round and leaves out of its clock (counted alone with --toggle-collect).
declare -A warm
for who in ours raw; do
  one=$(count "$who" 50000 50000 1)
  three=$(count "$who" 50000 50000 3)
  gc=$(( $(count "$who" 50000 50000 3 gc) - $(count "$who" 50000 50000 1 gc) ))
  warm[$who]=$(( (three - one - gc) / 100000 ))
  echo "$who: ${warm[$who]} instructions per envelope (warm rounds of 50,000)"
done
echo "ours/raw: $(awk "BEGIN { printf \"%.3f\", ${warm[ours]} / ${warm[raw]} }") (warm rounds)"
