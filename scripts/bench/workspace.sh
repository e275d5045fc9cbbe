# Sourced by the benchmark scripts: a work folder in $WORK, removed on exit, and every process
# whose pid is added to PIDS stopped then; Tapedeck's home (its CA) lives in the folder;
# `start`, which runs a server on a free port; `cpu_ticks` and `cpu_per_request`, what a server's CPU time was;
# and `median` and `ratio`, how every benchmark reports its rounds.
WORK="$(mktemp -d)"
PIDS=()
cleanup() { for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
export TAPEDECK_HOME="$WORK/home"

# start NAME COMMAND...: runs a server on a free port, waits for its listening line; sets PORT and PID.
start() {
  local name="$1"; shift
  PORT="$(python3 scripts/bench/free_port.py)"
  "$@" --port "$PORT" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PID=$!
  PIDS+=("$PID")
  for _ in $(seq 1 200); do
    grep -q "listening on" "$WORK/$name.out" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "$name did not start: $(cat "$WORK/$name.err")" >&2
  exit 1
}

# cpu_ticks PID: the CPU time (user and system) the process used so far, in clock ticks (getconf CLK_TCK a second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# cpu_per_request PID TICKS_BEFORE REQUESTS: the process's CPU microseconds per request since cpu_ticks gave TICKS_BEFORE.
cpu_per_request() {
  awk -v before="$2" -v after="$(cpu_ticks "$1")" -v requests="$3" -v tick="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.1f", (after - before) / tick * 1e6 / requests }'
}

# median: the median of the numbers on standard input (one a line, or several a line apart by spaces).
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ratio A B: A / B to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
