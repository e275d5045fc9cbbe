#!/usr/bin/env bash
# The hardening suite, measured: runs Tests/TapedeckHardeningTests with TAPEDECK_HARDENING=1
# (1,000 keep-alive connections for 30 s against replay and record, 500 half-sent requests,
# malformed requests, recording faults, safe defaults), against 127.0.0.1 only, bounded by a
# timeout, and prints the table of docs/security.md: what was tried, how much, what happened, what was lost.
# Usage: scripts/hardening.sh [SECONDS_PER_LOAD]   (default 30; CONFIG=release for a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_LOAD="${1:-30}"
CONFIG="${CONFIG:-debug}"
# 1,000 client sockets plus 1,000 server sockets plus the upstream's, in one test process and its children.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TAPEDECK_HOME="$WORK/home"   # never touch the user's CA

# The large-body test moves 1 GiB in a release build; a debug build hashes side files at about
# 1.6 MB/s, so there it moves 64 MiB unless TAPEDECK_LARGE_BODY_MIB says otherwise.
if [ "$CONFIG" = debug ]; then export TAPEDECK_LARGE_BODY_MIB="${TAPEDECK_LARGE_BODY_MIB:-64}"; fi

echo "building ($CONFIG)..." >&2
swift build -c "$CONFIG" --build-tests >&2
START=$(date +%s)
set +e
TAPEDECK_HARDENING=1 TAPEDECK_HARDENING_SECONDS="$SECONDS_PER_LOAD" \
  timeout --kill-after=30 $((SECONDS_PER_LOAD * 4 + 240)) \
  swift test -c "$CONFIG" --skip-build --filter TapedeckHardeningTests >"$WORK/log" 2>&1
STATUS=$?
set -e
ELAPSED=$(( $(date +%s) - START ))

grep -E '✘|error:' "$WORK/log" >&2 || true
echo
echo "| What was tried | How much | What happened | What was lost |"
echo "|---|---|---|---|"
grep '^HARDENING-FIGURE|' "$WORK/log" | awk -F'|' '{ printf "| %s | %s | %s | %s |\n", $2, $3, $4, $5 }'
echo
SUMMARY=$(grep -E 'Test run with' "$WORK/log" | tail -1 || true)
echo "${SUMMARY:-no test summary (status $STATUS)}; ${ELAPSED} s on $(nproc) cores, ${CONFIG} build."
if [ "$STATUS" -ne 0 ]; then
  echo "hardening suite FAILED (status $STATUS); full log follows" >&2
  tail -80 "$WORK/log" >&2
  exit 1
fi
