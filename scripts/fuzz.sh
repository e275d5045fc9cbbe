#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (`swift build --sanitize=fuzzer`, a separate package
# the main build never sees) and runs each for a bounded time from the seed corpus in
# Fuzz/Corpus; fails if any target crashes, leaks past libFuzzer's limits, or hangs.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
SECONDS_PER_TARGET="${1:-60}"
TARGETS=(CassetteDecoderFuzz:cassette RequestPathFuzz:request)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export TAPEDECK_HOME="$WORK/home"

echo "building the fuzz targets (swift build --sanitize=fuzzer)..." >&2
BUILD_START=$(date +%s)
swift build --sanitize=fuzzer >&2
BIN="$(swift build --sanitize=fuzzer --show-bin-path)"
echo "built in $(( $(date +%s) - BUILD_START )) s" >&2

FAILED=0
for entry in "${TARGETS[@]}"; do
  target="${entry%%:*}"; seeds="${entry##*:}"
  mkdir -p "$WORK/$target/corpus" "$WORK/$target/crashes"
  cp Corpus/"$seeds"/* "$WORK/$target/corpus/"
  echo "== $target for ${SECONDS_PER_TARGET} s" >&2
  set +e
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb bounds memory per input.
  timeout --kill-after=30 $((SECONDS_PER_TARGET + 120)) "$BIN/$target" "$WORK/$target/corpus" \
    -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$WORK/$target/crashes/" -print_final_stats=1 >"$WORK/$target.log" 2>&1
  status=$?
  set -e
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$WORK/$target.log" | grep -Eo '[0-9]+$' || echo "?")
  corpus=$(ls "$WORK/$target/corpus" | wc -l)
  if [ "$status" -ne 0 ]; then
    FAILED=1
    mkdir -p crashes && cp "$WORK/$target/crashes/"* crashes/ 2>/dev/null || true
    echo "$target: FAILED (status $status) after $runs inputs; reproducer(s) copied to Fuzz/crashes/" >&2
    grep -E 'ERROR|Fatal error|deadly signal|==[0-9]+==' "$WORK/$target.log" | head -20 >&2 || true
    tail -40 "$WORK/$target.log" >&2
  else
    echo "$target: ok, $runs inputs in ${SECONDS_PER_TARGET} s, corpus grew to $corpus files, no crash"
  fi
done
exit "$FAILED"
