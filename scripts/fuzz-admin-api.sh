#!/usr/bin/env bash
# Fuzzes the admin API against its own contract: starts `tapedeck replay` with the example cassette
# and stubs on a free loopback port, runs schemathesis with all its checks on GET /__tapedeck/openapi.json
# (bounded in examples and in time), then checks the server still answers normally and stops it.
# Fails on a server error, an answer the document does not allow, or a server that is down after.
#
# Usage: scripts/fuzz-admin-api.sh
#   TAPEDECK_BINARY   the tapedeck to run (default: the newer of .build/debug and .build/release)
#   FUZZ_EXAMPLES     test cases per operation and phase (default 100)
#   FUZZ_SECONDS      the bound on schemathesis's run (default 300)
#   FUZZ_SEED         a seed, to repeat a run (default: a new one, printed at the end)
# Needs curl, and schemathesis, which it installs from PyPI when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${TAPEDECK_BINARY:-$(ls -t .build/debug/tapedeck .build/release/tapedeck 2>/dev/null | head -1 || true)}"
if [ -z "$BINARY" ] || [ ! -x "$BINARY" ]; then
    echo "no tapedeck binary: build one (swift build) or set TAPEDECK_BINARY" >&2
    exit 2
fi
if ! command -v schemathesis >/dev/null; then
    python3 -m pip install --quiet --no-cache-dir schemathesis \
        || python3 -m pip install --quiet --no-cache-dir --break-system-packages schemathesis
fi
command -v schemathesis >/dev/null || { echo "schemathesis is not on the PATH after pip install schemathesis" >&2; exit 2; }

WORK="$(mktemp -d)"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ] && kill -0 "$SERVER" 2>/dev/null; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Its own CA folder, so the run writes nothing in the user's.
TAPEDECK_HOME="$WORK/home" "$BINARY" replay cassettes/example.json --stubs cassettes/stubs-example.json --host 127.0.0.1 --port 0 >"$WORK/server.log" 2>&1 &
SERVER=$!
BASE=""
for _ in $(seq 300); do
    BASE="$(grep -Eo 'tapedeck listening on http://127\.0\.0\.1:[0-9]+' "$WORK/server.log" | grep -Eo 'http://.*' || true)"
    [ -n "$BASE" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log" >&2; echo "tapedeck did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$BASE" ] || { cat "$WORK/server.log" >&2; echo "tapedeck did not listen within 30 s" >&2; exit 1; }
echo "fuzzing the admin API of $BINARY at $BASE"

# The binary must serve the committed document: an older build would be fuzzed against an older contract.
curl -sf "$BASE/__tapedeck/openapi.json" -o "$WORK/served.json"
if ! cmp -s "$WORK/served.json" schema/admin-api.openapi.json; then
    echo "$BINARY serves another document than schema/admin-api.openapi.json: rebuild it" >&2
    exit 1
fi

# Traffic for the journal, the unmatched log and the inspector to show: played and unmatched requests.
for path in "/plaintext?name=Shawn" "/plaintext?name=Bob" "/image.png" "/nowhere"; do
    curl -s -o /dev/null "$BASE$path"
done

# The event stream never ends, which a request-and-answer fuzzer cannot wait for: the conformance
# test (AdminAPIDocumentTests) reads its start instead, and checks GET openapi.json, which
# schemathesis leaves out as the schema it loaded. Requests come from loopback without an Origin,
# so the guard lets them in; reset and deleting stubs are fine to call.
# positive_data_acceptance (schemathesis's "schema-valid request rejected") is left out: a stub's
# `graphql.query` must be a GraphQL document that parses, which no JSON Schema keyword can say, so
# a random string the schema allows is rightly refused with the documented 400. Every other check
# runs, and the 400s' bodies are still checked against the document.
SEED_OPTION=()
[ -n "${FUZZ_SEED:-}" ] && SEED_OPTION=(--seed "$FUZZ_SEED")
START=$(date +%s)
set +e
(cd "$WORK" && timeout --kill-after=10 "${FUZZ_SECONDS:-300}" \
    schemathesis run "$BASE/__tapedeck/openapi.json" --url "$BASE" \
        --checks all --exclude-checks positive_data_acceptance --max-examples "${FUZZ_EXAMPLES:-100}" "${SEED_OPTION[@]}" \
        --exclude-path /__tapedeck/events --workers 1 --request-timeout 10 --no-color)
STATUS=$?
set -e
echo "schemathesis finished in $(( $(date +%s) - START )) s with status $STATUS"
if [ "$STATUS" -eq 124 ] || [ "$STATUS" -eq 137 ]; then
    echo "schemathesis ran past ${FUZZ_SECONDS:-300} s" >&2
fi

# The server is still up and still answers as before.
FAILED=$STATUS
if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "tapedeck exited during the run:" >&2
    cat "$WORK/server.log" >&2
    exit 1
fi
HEALTH="$(curl -s --max-time 10 -w '\n%{http_code}' "$BASE/__tapedeck/health" || true)"
if [ "$(tail -1 <<<"$HEALTH")" != 200 ] || ! grep -q '"status" : "ok"' <<<"$HEALTH"; then
    echo "tapedeck does not answer /__tapedeck/health normally after the run: $HEALTH" >&2
    FAILED=1
fi
curl -s -o /dev/null -X POST -H 'Content-Type: application/json' "$BASE/__tapedeck/reset"
PLAYED="$(curl -s --max-time 10 "$BASE/plaintext?name=Shawn" || true)"
if [ "$PLAYED" != "Hello Shawn!" ]; then
    echo "tapedeck does not replay the example cassette after the run: $PLAYED" >&2
    FAILED=1
fi

kill "$SERVER"
set +e
wait "$SERVER"
EXIT=$?
set -e
SERVER=""
if [ "$EXIT" -ne 0 ]; then
    echo "tapedeck exited with status $EXIT when stopped:" >&2
    tail -20 "$WORK/server.log" >&2
    FAILED=1
fi
[ "$FAILED" -eq 0 ] && echo "admin API fuzzed: no server error, every answer fits the document, the server answers normally after"
exit "$FAILED"
