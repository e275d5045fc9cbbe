#!/usr/bin/env bash
# Connector benchmark: Tapedeck's in-process replay against a 10- and a 100,000-interaction
# cassette, and, in the same run, the peer baseline vcrpy replaying through `requests`.
# Everything stays on this machine (127.0.0.1 only).
#
#     scripts/bench-connector.sh [REQUESTS]
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-200000}"

swift build -c release --package-path Benchmarks --product tapedeck-bench >/dev/null
output=$("$(swift build -c release --package-path Benchmarks --show-bin-path)/tapedeck-bench" --requests "$requests")
echo "$output"

if ! python3 -c "import vcr, requests" >/dev/null 2>&1; then
    python3 -m pip install --quiet vcrpy requests >/dev/null 2>&1 || true
fi
if python3 -c "import vcr, requests" >/dev/null 2>&1; then
    tapedeck_us=$(echo "$output" | awk '/replay, 10 interactions/ { print $4 }')
    vcrpy_us=$(python3 scripts/bench/vcrpy_replay.py 2000)
    echo
    echo "Peer baseline, same machine, same run:"
    printf "  vcrpy + requests, 10 interactions: %8.1f µs/request\n" "$vcrpy_us"
    awk -v t="$tapedeck_us" -v v="$vcrpy_us" 'BEGIN { printf "  Tapedeck connector is %.0f× faster per request\n", v / t }'
else
    echo "(vcrpy not available: peer baseline skipped)"
fi
