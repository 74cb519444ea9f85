#!/usr/bin/env bash
# Scenario 2b counted in instructions (valgrind's callgrind): what one request costs each contender on
# the in-process fake server, and ours over raw. See bench/README.md, "The request path in instructions".
#
#   bench/count-request.sh                  # ours, raw and upstream at 4,000 and 12,000 requests
#   bench/count-request.sh ours raw         # only these
#   SMALL=2000 LARGE=6000 bench/count-request.sh ours
set -euo pipefail
cd "$(dirname "$0")/.."
small=${SMALL:-4000}
large=${LARGE:-12000}
mkdir -p node_modules/.cache
bundle=$(mktemp -p node_modules/.cache request-cost-instructions.XXXXXX --suffix=.mjs)
trap 'rm -f "$bundle"' EXIT
node_modules/.bin/esbuild bench/request-cost-instructions.ts --bundle --platform=node --format=esm --target=node20 \
  --packages=external --log-level=warning --outfile="$bundle"

# Single-threaded V8, fixed seeds and a fixed young generation: the same count on every run.
count() { # contender requests: instructions of one process
  valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    node --single-threaded --min-semi-space-size=16 --max-semi-space-size=16 --hash-seed=1 --random-seed=1 \
    --expose-gc "$bundle" "$1" "$2" 2>&1 >/dev/null | awk '/Collected/ { print $4 }'
}

declare -A per
who_list=("$@")
[[ ${#who_list[@]} -gt 0 ]] || who_list=(ours raw upstream)
for who in "${who_list[@]}"; do
  a=$(count "$who" "$small")
  b=$(count "$who" "$large")
  per[$who]=$(( (b - a) / (large - small) ))
  echo "$who: ${per[$who]} instructions per request"
done
if [[ -n ${per[ours]:-} && -n ${per[raw]:-} ]]; then
  echo "ours/raw: $(awk "BEGIN { printf \"%.3f\", ${per[ours]} / ${per[raw]} }")"
fi
