#!/usr/bin/env bash
# Upload benchmark (the "Request bodies at wire speed" issue), 127.0.0.1 only, all in one run:
# curl uploads a 10 MB and a 100 MB body of random bytes (application/octet-stream) over HTTP/1.1
# and HTTP/2 (h2c, prior knowledge) to
#   stub     `tapedeck replay` answering a stub for any POST /upload/...;
#   match    `tapedeck replay` of a cassette that recorded these very uploads (matched by digest);
#   miss     the same server, with one byte of the body changed (599 and its diagnosis);
#   record   `tapedeck record` forwarding to the Python upstream and recording;
#   recbare  the same in front of the bare SwiftNIO server, an upstream that costs next to nothing;
#   bare     a bare SwiftNIO server that reads the body and drops it (Benchmarks/BareServer, with
#            Tapedeck's HTTP/2 receive windows);
#   python   Python's http.server reading the body (scripts/upload_upstream.py; HTTP/1.1 only),
#            which is also the recorder's upstream.
# curl sends no `Expect: 100-continue` (it waits a second for a `100 Continue` the bare server
# never sends); Tapedeck's answer to it is tested, not timed here.
# Every server is measured in ROUNDS alternating rounds, each case one upload a round, and the
# medians of curl's total time are compared. Goals: 100 MB in under 1 s in every case, 100 MB
# taking at most 15 times as long as 10 MB, and at least 0.25 of the bare server's rate.
# Usage: scripts/bench-upload.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"

source scripts/bench/release_build.sh

source scripts/bench/workspace.sh
SIZES=(10 100)
for size in "${SIZES[@]}"; do
  head -c "${size}000000" /dev/urandom >"$WORK/$size.bin"
  cp "$WORK/$size.bin" "$WORK/$size-changed.bin"
  printf '\xff' | dd of="$WORK/$size-changed.bin" bs=1 seek=$((size * 500000)) conv=notrunc status=none
done
LIMIT=$((1 << 30))

# upload URL FILE [CURL ARGUMENTS...]: prints curl's total time in seconds; fails on a status it did not expect.
upload() {
  local url="$1" file="$2"; shift 2
  curl -sS -o "$WORK/answer" -w '%{http_code} %{time_total}\n' -H 'Content-Type: application/octet-stream' -H 'Expect:' \
    --data-binary "@$file" "$@" "$url" >"$WORK/timing"
  read -r status seconds <"$WORK/timing"
  case "$status" in 2??|599) echo "$seconds" ;; *) echo "unexpected $status from $url: $(head -c 300 "$WORK/answer")" >&2; exit 1 ;; esac
}

start python python3 scripts/upload_upstream.py; PYTHON_PORT=$PORT

# The cassette the match and miss cases replay: these uploads, recorded once.
start seed "$BIN/tapedeck" record "$WORK/seed.json" --target "http://127.0.0.1:$PYTHON_PORT" --max-body $LIMIT
for size in "${SIZES[@]}"; do upload "http://127.0.0.1:$PORT/upload/$size" "$WORK/$size.bin" >/dev/null; done
kill -INT "$PID"; wait "$PID" || true

cat >"$WORK/stubs.json" <<'JSON'
{"version": 1, "interactions": [], "stubs": [{"request": {"method": "POST", "pathRegex": "^/upload/"}, "response": {"status": 201, "body": {"text": "taken"}}}]}
JSON
start stub "$BIN/tapedeck" replay "$WORK/stubs.json" --max-body $LIMIT; STUB_PORT=$PORT
start replay "$BIN/tapedeck" replay "$WORK/seed.json" --max-body $LIMIT; REPLAY_PORT=$PORT
start record "$BIN/tapedeck" record "$WORK/recorded.json" --target "http://127.0.0.1:$PYTHON_PORT" --max-body $LIMIT
RECORD_PORT=$PORT RECORD_PID=$PID
start bareh1 "$BENCH_BIN/bare-server"; BARE_H1_PORT=$PORT
start recbare "$BIN/tapedeck" record "$WORK/recorded-bare.json" --target "http://127.0.0.1:$BARE_H1_PORT" --max-body $LIMIT
RECBARE_PORT=$PORT RECBARE_PID=$PID
start bareh2 "$BENCH_BIN/bare-server" --http2; BARE_H2_PORT=$PORT

# settle PID: after a recording, waits (at most 5 s) until the recorder used no CPU for 0.2 s and
# its side files are on disk, so that copying the body into the cassette after the answer is not
# charged to the case that follows.
settle() {
  local last now
  last="$(cpu_ticks "$1")"
  for _ in $(seq 1 25); do
    sleep 0.2; now="$(cpu_ticks "$1")"
    [ "$now" = "$last" ] && break
    last="$now"
  done
  sync
}

# CASES: NAME PORT BODY-SUFFIX PROTOCOL (h1 | h2).
CASES=()
for protocol in h1 h2; do
  CASES+=("stub $STUB_PORT '' $protocol" "match $REPLAY_PORT '' $protocol" "miss $REPLAY_PORT -changed $protocol"
          "record $RECORD_PORT '' $protocol" "recbare $RECBARE_PORT '' $protocol")
done
CASES+=("bare $BARE_H1_PORT '' h1" "bare $BARE_H2_PORT '' h2" "python $PYTHON_PORT '' h1")
declare -A TIMES
for round in $(seq 1 "$ROUNDS"); do
  count=${#CASES[@]}
  for offset in $(seq 0 $((count - 1))); do
    eval "set -- ${CASES[$(((offset + round) % count))]}"
    name="$1" port="$2" suffix="$3" protocol="$4"
    flags=(); [ "$protocol" = h2 ] && flags=(--http2-prior-knowledge)
    for size in "${SIZES[@]}"; do
      seconds="$(upload "http://127.0.0.1:$port/upload/$size" "$WORK/$size$suffix.bin" "${flags[@]}")"
      TIMES["$name $protocol $size"]+="$seconds "
      [ "$name" = record ] && settle "$RECORD_PID"
      [ "$name" = recbare ] && settle "$RECBARE_PID"
    done
  done
  echo "round $round done" >&2
done

median_of() { echo "${TIMES[$1]}" | median; }
printf '%-8s %-3s %10s %10s %8s %9s %10s\n' case http "10 MB s" "100 MB s" "MB/s" "100/10" "of bare"
for entry in "${CASES[@]}"; do
  eval "set -- $entry"
  name="$1" protocol="$4"
  small="$(median_of "$name $protocol 10")" large="$(median_of "$name $protocol 100")"
  bare="$(median_of "bare $protocol 100")"
  printf '%-8s %-3s %10s %10s %8s %9s %10s\n' "$name" "$protocol" "$small" "$large" \
    "$(awk -v s="$large" 'BEGIN { printf "%.0f", 100 / s }')" "$(ratio "$large" "$small")" "$(ratio "$bare" "$large")"
done
