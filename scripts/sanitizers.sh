#!/usr/bin/env bash
# Runs the test suite under the thread sanitizer and the address sanitizer, each in its own
# scratch folder (.build-tsan, .build-asan) so the normal .build is untouched, and reports
# how long each took. Usage: scripts/sanitizers.sh [thread|address|all] [--filter REGEX]
#   e.g. scripts/sanitizers.sh thread --filter 'TapedeckServerTests|TapedeckHardeningTests'
# Locks in this code are the core's pthread-based Locked: on Linux TSan does not see the futex
# slow path of Synchronization.Mutex and reports races on what it guards
# (scripts/tsan-mutex-probe.swift shows it in 12 lines). Set TSAN_OPTIONS=halt_on_error=0 to
# see every report.
set -uo pipefail
cd "$(dirname "$0")/.."
WHICH="${1:-all}"; shift || true
FILTER=()
if [ "${1:-}" = "--filter" ]; then FILTER=(--filter "$2"); fi

# Logs stay in $SANITIZER_LOGS (default /tmp/tapedeck-sanitizers) for reading after the run.
WORK="${SANITIZER_LOGS:-/tmp/tapedeck-sanitizers}"
rm -rf "$WORK" && mkdir -p "$WORK"
export TAPEDECK_HOME="$WORK/home"
# Wall-clock deadlines in the tests stretch under a sanitizer (see Fixtures.deadlineScale).
export TAPEDECK_SANITIZER=1
# Halt on the first report, so a race or a memory error fails the run.
# (One known false report of Swift concurrency is suppressed; see scripts/tsan-suppressions.txt.)
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan-suppressions.txt ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0 ${ASAN_OPTIONS:-}"

# run_tests SANITIZER SCRATCH: the tests of the sanitized build, logged to $WORK/SANITIZER-test.log.
# The servers' own subprocess tests need the sanitized tapedeck binary too: it is in the same scratch folder.
run_tests() {
  timeout --kill-after=30 3600 swift test --skip-build --sanitize="$1" --scratch-path "$2" "${FILTER[@]}" >"$WORK/$1-test.log" 2>&1
}

run() {
  local sanitizer="$1" scratch="$2"
  local start=$(date +%s)
  echo "== $sanitizer sanitizer: building in $scratch" >&2
  if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" >"$WORK/$sanitizer-build.log" 2>&1; then
    tail -40 "$WORK/$sanitizer-build.log" >&2
    echo "$sanitizer: BUILD FAILED" ; return 1
  fi
  local built=$(date +%s)
  echo "== $sanitizer sanitizer: testing" >&2
  run_tests "$sanitizer" "$scratch"
  local status=$?
  # The thread sanitizer's runtime can fail its own check when a signal reaches a thread that is
  # exiting ("CHECK failed: ... thr->slot", google/sanitizers#1541, open; the tests' many
  # subprocesses send SIGCHLD): the run dies without any report. Such a run, and only such a run,
  # is run once more; any report of a race still fails at once.
  if [ "$status" -ne 0 ] && grep -q "ThreadSanitizer: CHECK failed" "$WORK/$sanitizer-test.log" \
     && ! grep -qE "WARNING: ThreadSanitizer|✘" "$WORK/$sanitizer-test.log"; then
    mv "$WORK/$sanitizer-test.log" "$WORK/$sanitizer-test-runtime-failure.log"
    echo "$sanitizer: the sanitizer's runtime failed its own check, with no report (google/sanitizers#1541); running once more" >&2
    run_tests "$sanitizer" "$scratch"
    status=$?
  fi
  local done=$(date +%s)
  grep -E 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|SUMMARY: |✘' "$WORK/$sanitizer-test.log" | head -40 >&2
  local summary=$(grep -E 'Test run with' "$WORK/$sanitizer-test.log" | tail -1)
  if [ "$status" -ne 0 ]; then
    tail -60 "$WORK/$sanitizer-test.log" >&2
    echo "$sanitizer: FAILED (status $status) - build $((built - start)) s, tests $((done - built)) s; $summary; log: $WORK/$sanitizer-test.log"
    return 1
  fi
  echo "$sanitizer: passed - build $((built - start)) s, tests $((done - built)) s; $summary"
}

STATUS=0
case "$WHICH" in
  thread) run thread .build-tsan || STATUS=1 ;;
  address) run address .build-asan || STATUS=1 ;;
  all) run thread .build-tsan || STATUS=1; run address .build-asan || STATUS=1 ;;
  *) echo "usage: scripts/sanitizers.sh [thread|address|all] [--filter REGEX]" >&2; exit 2 ;;
esac
exit "$STATUS"
