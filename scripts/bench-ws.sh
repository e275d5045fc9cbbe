#!/usr/bin/env bash
# WebSocket benchmark (the "WebSocket" issue), 127.0.0.1 only, all in one run: messages per
# second that one Python `websockets` client (scripts/ws_calls.py echo:N) gets answered, one at a
# time, by
#   (a) the `websockets` echo service directly (scripts/ws_upstream.py),
#   (b) the same service through `tapedeck record --target` (each run records a fresh cassette),
#   (c) `tapedeck replay` of the conversation (b) recorded.
# Measured in ROUNDS alternating rounds, each starting one further along, compared by medians.
# Goal: (c)/(a) >= 0.5. The client is the same program for all three, so its own cost is in each.
# Usage: scripts/bench-ws.sh [MESSAGES] [ROUNDS]   (defaults 2000 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
MESSAGES="${1:-2000}"
ROUNDS="${2:-5}"

echo "building the release binary..." >&2
swift build -c release --product tapedeck >&2
BIN="$(swift build -c release --show-bin-path)"

source scripts/bench/workspace.sh

# Waits for a server's first line naming its address; prints the port.
listening() {
  for _ in $(seq 1 200); do
    if grep -q "127.0.0.1:" "$1" 2>/dev/null; then sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$1" | head -1; return; fi
    sleep 0.05
  done
  echo "no server started: $(cat "$1")" >&2; exit 1
}

python3 scripts/ws_upstream.py >"$WORK/upstream.out" 2>&1 &
PIDS+=($!)
UPSTREAM="$(listening "$WORK/upstream.out")"

RECORD_PORT="$(python3 scripts/bench/free_port.py)"
"$BIN/tapedeck" record "$WORK/echo.json" --mode all --target "http://127.0.0.1:$UPSTREAM" --port "$RECORD_PORT" \
  >"$WORK/record.out" 2>"$WORK/record.err" &
RECORDER=$!
PIDS+=($RECORDER)
listening "$WORK/record.out" >/dev/null

# One run: messages per second through ws://127.0.0.1:PORT/echo.
rate() {
  python3 scripts/ws_calls.py "ws://127.0.0.1:$1/echo" recv "echo:$MESSAGES" close:1000:bye \
    | sed -n 's/^echoed \([0-9]*\) in \([0-9.]*\) seconds$/\1 \2/p' | awk '{ printf "%.0f\n", $1 / $2 }'
}

# The conversation to replay: recorded once before the rounds.
rate "$RECORD_PORT" >/dev/null
kill -INT "$RECORDER"; wait "$RECORDER" 2>/dev/null || true
"$BIN/tapedeck" record "$WORK/ignored.json" --mode all --target "http://127.0.0.1:$UPSTREAM" --port "$RECORD_PORT" \
  >"$WORK/record.out" 2>"$WORK/record.err" &
PIDS+=($!)
REPLAY_PORT="$(python3 scripts/bench/free_port.py)"
"$BIN/tapedeck" replay "$WORK/echo.json" --port "$REPLAY_PORT" >"$WORK/replay.out" 2>"$WORK/replay.err" &
PIDS+=($!)
listening "$WORK/replay.out" >/dev/null
listening "$WORK/record.out" >/dev/null

declare -A RESULTS
NAMES=(direct proxy replay)
PORTS=("$UPSTREAM" "$RECORD_PORT" "$REPLAY_PORT")
for round in $(seq 1 "$ROUNDS"); do
  for step in 0 1 2; do
    index=$(( (round + step) % 3 ))
    value="$(rate "${PORTS[$index]}")"
    RESULTS[${NAMES[$index]}]+="$value "
    echo "round $round ${NAMES[$index]}: $value messages/s" >&2
  done
done

DIRECT="$(echo "${RESULTS[direct]}" | median)"
PROXY="$(echo "${RESULTS[proxy]}" | median)"
REPLAY="$(echo "${RESULTS[replay]}" | median)"
echo "messages/s, medians of $ROUNDS rounds of $MESSAGES one-at-a-time echoes:"
echo "  websockets directly:        $DIRECT"
echo "  through tapedeck record:    $PROXY ($(ratio "$PROXY" "$DIRECT") of direct)"
echo "  from tapedeck replay:       $REPLAY ($(ratio "$REPLAY" "$DIRECT") of direct; goal >= 0.5)"
