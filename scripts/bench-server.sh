#!/usr/bin/env bash
# Server benchmark: the same wrk load (64 keep-alive connections, 127.0.0.1 only) on
#   (a) the bare SwiftNIO server answering a fixed JSON response (the baseline),
#   (b) `tapedeck replay` on a 1,000- and a 100,000-interaction cassette,
#   (c) `tapedeck record --target` in front of the bare server, recording into a cassette,
#   (d) the same proxy forwarding only (the upstream host passed through, nothing recorded),
#       which separates the cost of forwarding from the cost of recording,
#   (e) `tapedeck replay --no-admin` on the 1,000 cassette: the server without the inspector's list,
#   (f) with BASELINE=/path/to/tapedeck, another build's replay (1,000) and record, for a change's cost,
# all in one run; prints req/s, latency percentiles, peak RSS and ratios to (a), and each server's
# CPU time per request (user and system, read from /proc around each load): what a change costs,
# less blurred than req/s by the load generator sharing the machine's cores.
# On a small shared machine one measurement of (a) varies by 10 % or more from run to run, so
# every server is measured in ROUNDS alternating rounds, each starting one server further along,
# and compared by its median; each round's own ratios are printed too.
# Usage: [BASELINE=/path/to/tapedeck] scripts/bench-server.sh [DURATION_SECONDS] [ROUNDS]   (defaults 10 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
ROUNDS="${2:-3}"
CONNECTIONS=64
THREADS=2

if ! command -v wrk >/dev/null; then
  echo "installing wrk with apt-get" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi

source scripts/bench/release_build.sh

source scripts/bench/workspace.sh

python3 scripts/bench/make_cassette.py 1000 "$WORK/c1k.json"
python3 scripts/bench/make_cassette.py 100000 "$WORK/c100k.json"

stop() { kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# load NAME URL CONNECTIONS SECONDS: runs wrk and keeps its output in $WORK/NAME.wrk
load() {
  local threads=$(( $3 < THREADS ? $3 : THREADS ))
  wrk -t"$threads" -c"$3" -d"$4"s --latency "$2" >"$WORK/$1.wrk"
}

rps() { awk '/Requests\/sec/ {print $2}' "$WORK/$1.wrk"; }
pct() { awk -v p="$2" '$1 == p {print $2}' "$WORK/$1.wrk"; }
rss_mb() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
ms() { # converts wrk's 1.23ms / 456.00us / 1.2s to milliseconds
  awk -v v="$1" 'BEGIN { if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v/1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v } else if (v ~ /s$/) { sub(/s$/, "", v); printf "%.3f", v*1000 } else print v }'
}

report() { # NAME LABEL PID BASE_RPS
  local r; r="$(rps "$1")"
  printf "%-34s %10s req/s  p50 %8s  p90 %8s  p99 %8s  peak RSS %7s MB" "$2" "$r" "$(pct "$1" 50%)" "$(pct "$1" 90%)" "$(pct "$1" 99%)" "$3"
  if [ -n "${4:-}" ]; then printf "  ratio %s" "$(ratio "$r" "$4")"; fi
  echo
}

# server NAME PORT|PID: that server's port or process id (kept in NAME_PORT and NAME_PID when it started).
server() { local var="${1^^}_$2"; echo "${!var}"; }
# measured NAME ROUND: loads that server in that round, and keeps its CPU microseconds per request in $WORK/NAME.ROUND.cpu.
measured() {
  local pid before
  pid="$(server "$1" PID)"
  before="$(cpu_ticks "$pid")"
  load "$1.$2" "http://127.0.0.1:$(server "$1" PORT)/items/500" "$CONNECTIONS" "$DURATION"
  cpu_per_request "$pid" "$before" "$(awk '/requests in/ { print $1 }' "$WORK/$1.$2.wrk")" >"$WORK/$1.$2.cpu"
}
cpu() { cat "$WORK/$1.cpu"; }
# median_cpu NAME: the median over the rounds of that server's CPU microseconds per request.
median_cpu() { for round in $(seq 1 "$ROUNDS"); do cpu "$1.$round"; echo; done | median; }

echo "== ${CONNECTIONS} keep-alive connections, ${DURATION}s each, wrk -t${THREADS}; ${ROUNDS} rounds of bare, replay, record, forward, replay --no-admin${BASELINE:+, baseline replay and record} =="

start bare "$BENCH_BIN/bare-server"; BARE_PID=$PID; BARE_PORT=$PORT
start replay1k "$BIN/tapedeck" replay "$WORK/c1k.json"; REPLAY1K_PID=$PID; REPLAY1K_PORT=$PORT
start replay100k "$BIN/tapedeck" replay "$WORK/c100k.json"; REPLAY100K_PID=$PID; REPLAY100K_PORT=$PORT
start record "$BIN/tapedeck" record "$WORK/recorded.json" --target "http://127.0.0.1:$BARE_PORT"
RECORD_PID=$PID; RECORD_PORT=$PORT
start forward "$BIN/tapedeck" record "$WORK/unused.json" --target "http://127.0.0.1:$BARE_PORT" --passthrough-host 127.0.0.1
FORWARD_PID=$PID; FORWARD_PORT=$PORT
# Replay without the admin API, so without the inspector's list of the last exchanges: what the
# server itself costs, apart from what the inspector keeps of every request.
start noadmin "$BIN/tapedeck" replay "$WORK/c1k.json" --no-admin; NOADMIN_PID=$PID; NOADMIN_PORT=$PORT
MEASURED=(bare replay1k replay100k record forward noadmin)
# With BASELINE=/path/to/another/tapedeck, that build replays and records in the same rounds
# (an older commit's, say), so a change is measured against it on the same machine at the same time.
if [ -n "${BASELINE:-}" ]; then
  start basereplay "$BASELINE" replay "$WORK/c1k.json"; BASEREPLAY_PID=$PID; BASEREPLAY_PORT=$PORT
  start baserecord "$BASELINE" record "$WORK/baseline-recorded.json" --target "http://127.0.0.1:$BARE_PORT"
  BASERECORD_PID=$PID; BASERECORD_PORT=$PORT
  MEASURED+=(basereplay baserecord)
fi
# Every server is measured once per round, in turn, so a slow spell of the machine falls on all of them alike.
# Each round starts one place further along the list: a server measured right after a recording run
# (whose cassette the kernel is still writing out) is a different one each round, not always the same.
# After each load, `sync` waits for what the recorders wrote, so the next load starts on a quiet machine.
for round in $(seq 1 "$ROUNDS"); do
  line=""
  count=${#MEASURED[@]}
  for step in $(seq 0 $((count - 1))); do
    name="${MEASURED[$(( (round - 1 + step) % count ))]}"
    measured "$name" "$round"
    sync
  done
  for name in "${MEASURED[@]}"; do
    [ "$name" = bare ] || line="$line $name $(ratio "$(rps "$name.$round")" "$(rps "bare.$round")"),"
  done
  echo "  round $round (from ${MEASURED[$(( (round - 1) % count ))]}): bare $(rps "bare.$round") req/s;${line%,}"
  line=""; for name in "${MEASURED[@]}"; do line="$line $name $(cpu "$name.$round"),"; done
  echo "    server CPU µs per request:${line%,}"
done
# The round whose throughput is the median stands for each server.
median_round() { for round in $(seq 1 "$ROUNDS"); do echo "$(rps "$1.$round") $round"; done | sort -n | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2) { print $2 }'; }
BARE_RPS="$(for round in $(seq 1 "$ROUNDS"); do rps "bare.$round"; done | median)"
report "bare.$(median_round bare)" "bare SwiftNIO server (median)" "$(rss_mb "$BARE_PID")"
for size in 1k 100k; do
  pid_var="REPLAY${size^^}_PID"
  report "replay$size.$(median_round "replay$size")" "tapedeck replay, $size interactions (median)" "$(rss_mb "${!pid_var}")" "$BARE_RPS"
  echo "    cassette on disk: $(du -m "$WORK/c$size.json" | cut -f1) MB; goal: RSS < 3 x size + 50 MB"
  stop "${!pid_var}"
done
report "record.$(median_round record)" "tapedeck record --target (median)" "$(rss_mb "$RECORD_PID")" "$BARE_RPS"
report "forward.$(median_round forward)" "same, forwarding only (median)" "$(rss_mb "$FORWARD_PID")" "$BARE_RPS"
report "noadmin.$(median_round noadmin)" "tapedeck replay 1k, --no-admin (median)" "$(rss_mb "$NOADMIN_PID")" "$BARE_RPS"
stop "$FORWARD_PID"; stop "$NOADMIN_PID"
if [ -n "${BASELINE:-}" ]; then
  report "basereplay.$(median_round basereplay)" "baseline replay, 1k (median)" "$(rss_mb "$BASEREPLAY_PID")" "$BARE_RPS"
  report "baserecord.$(median_round baserecord)" "baseline record --target (median)" "$(rss_mb "$BASERECORD_PID")" "$BARE_RPS"
  stop "$BASEREPLAY_PID"; stop "$BASERECORD_PID"
fi
line=""; for name in "${MEASURED[@]}"; do line="$line $name $(median_cpu "$name"),"; done
echo "server CPU µs per request, medians:${line%,}"
if [ -n "${BASELINE:-}" ]; then
  # paired FIGURE NAME BASE: each round's ratio of NAME's figure (rps or cpu) to BASE's, one a line.
  paired() { for round in $(seq 1 "$ROUNDS"); do ratio "$("$1" "$2.$round")" "$("$1" "$3.$round")"; echo; done; }
  for pair in "replay replay1k basereplay" "record record baserecord"; do
    read -r label name base <<<"$pair"
    rates="$(paired rps "$name" "$base")"; cpus="$(paired cpu "$name" "$base")"
    echo "$label against the baseline, paired by round: req/s $(paste -sd' ' <<<"$rates") (median $(median <<<"$rates");" \
         "goal >= 0.95), CPU per request $(paste -sd' ' <<<"$cpus") (median $(median <<<"$cpus"))"
  done
fi

echo "== one connection, ${DURATION}s: median latency added by the recording proxy =="
load bare1 "http://127.0.0.1:$BARE_PORT/items/1" 1 "$DURATION"
load record1 "http://127.0.0.1:$RECORD_PORT/items/1" 1 "$DURATION"
report bare1 "bare SwiftNIO server (1 conn)" "$(rss_mb "$BARE_PID")"
report record1 "tapedeck record (1 conn)" "$(rss_mb "$RECORD_PID")" "$(rps bare1)"
BARE_P50="$(ms "$(pct bare1 50%)")"; RECORD_P50="$(ms "$(pct record1 50%)")"
awk -v a="$RECORD_P50" -v b="$BARE_P50" 'BEGIN { printf "median latency added: %.3f ms (goal < 0.5 ms)\n", a-b }'
stop "$RECORD_PID"
echo "recorded interactions: $(grep -c '"recordedAt" : ' "$WORK/recorded.json"), cassette $(du -m "$WORK/recorded.json" | cut -f1) MB"
# The bare server keeps the default SIGINT action, which a background job of a script ignores: stop it with TERM.
kill "$BARE_PID" 2>/dev/null || true; wait "$BARE_PID" 2>/dev/null || true
