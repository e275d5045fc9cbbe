#!/usr/bin/env bash
# API contract benchmark (the OpenAPI issue), 127.0.0.1 only, all in one run:
#   (a) `tapedeck replay` of a cassette of 1,000 recordings (GET /v1/pets/N, JSON pets), and
#   (b) the same with `--openapi` (the Petstore document of the tests), which checks every
#       request and every answer it serves against the document;
# wrk (64 keep-alive connections, 5 s) against one recorded operation, in ROUNDS alternating
# rounds, compared by the medians of requests a second. Goal: (b)/(a) >= 0.7.
# Then `tapedeck openapi validate` of the same cassette, median of five runs. Goal: under 1 s.
# Usage: scripts/bench-openapi.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
SPEC=Tests/TapedeckToolingTests/Fixtures/openapi/petstore-3.0.yaml

if ! command -v wrk >/dev/null; then
  echo "installing wrk with apt-get" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi
echo "building the release binary..." >&2
swift build -c release --product tapedeck >&2
BIN="$(swift build -c release --show-bin-path)"
source scripts/bench/workspace.sh

python3 - "$WORK/pets.json" <<'PY'
import json, sys
interactions = [{"request": {"method": "GET", "url": f"/v1/pets/{n}", "headers": {}},
                 "response": {"status": 200, "headers": {"Content-Type": ["application/json"]},
                              "body": {"text": json.dumps({"id": n, "name": f"pet-{n}", "tag": None})}}}
                for n in range(1000)]
json.dump({"version": 1, "meta": {}, "interactions": interactions}, open(sys.argv[1], "w"))
PY

start plain "$BIN/tapedeck" replay "$WORK/pets.json"; PLAIN_PORT=$PORT
start contract "$BIN/tapedeck" replay "$WORK/pets.json" --openapi "$SPEC"; CONTRACT_PORT=$PORT
curl -sf "http://127.0.0.1:$CONTRACT_PORT/v1/pets/500" >/dev/null

declare -A RPS
for round in $(seq 1 "$ROUNDS"); do
  order=(plain contract); [ $((round % 2)) = 0 ] && order=(contract plain)
  for name in "${order[@]}"; do
    port=$PLAIN_PORT; [ "$name" = contract ] && port=$CONTRACT_PORT
    wrk -t2 -c64 -d5s "http://127.0.0.1:$port/v1/pets/500" >"$WORK/$name.wrk"
    RPS[$name]+="$(awk '/Requests\/sec/ {print $2}' "$WORK/$name.wrk") "
  done
  echo "round $round done" >&2
done
plain="$(echo "${RPS[plain]}" | median)" contract="$(echo "${RPS[contract]}" | median)"
printf 'replay               %10s requests/s   (rounds: %s)\n' "$plain" "${RPS[plain]}"
printf 'replay --openapi     %10s requests/s   (rounds: %s)\n' "$contract" "${RPS[contract]}"
printf 'ratio                %10s   (goal >= 0.7)\n' "$(ratio "$contract" "$plain")"

TIMES=""
for _ in 1 2 3 4 5; do
  start_ns=$(date +%s%N)
  "$BIN/tapedeck" openapi validate "$SPEC" "$WORK/pets.json" >/dev/null || true
  TIMES+="$(awk -v a="$start_ns" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }') "
done
printf 'openapi validate, 1,000 interactions: %s s median   (runs: %s; goal < 1 s)\n' "$(echo "$TIMES" | median)" "$TIMES"
