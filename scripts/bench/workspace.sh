# Sourced by the benchmark scripts: a work folder in $WORK, removed on exit, and every process
# whose pid is added to PIDS stopped then; Tapedeck's home (its CA) lives in the folder.
WORK="$(mktemp -d)"
PIDS=()
cleanup() { for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
export TAPEDECK_HOME="$WORK/home"
