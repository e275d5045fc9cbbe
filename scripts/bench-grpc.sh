#!/usr/bin/env bash
# gRPC connector benchmark: a replayed unary call in process (TapedeckGRPC) against the same call
# through `tapedeck replay` over 127.0.0.1 with grpc-swift's HTTP/2 transport, in the same run,
# alternating rounds, medians (Benchmarks/GRPCBenchmark). Goal: at least 20 times cheaper in process.
#
#     scripts/bench-grpc.sh [CALLS] [ROUNDS]   (defaults 5000 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
calls="${1:-5000}"
rounds="${2:-5}"
echo "building the release binaries..." >&2
swift build -c release --product tapedeck >&2
swift build -c release --package-path Benchmarks --product tapedeck-grpc-bench >&2
"$(swift build -c release --package-path Benchmarks --show-bin-path)/tapedeck-grpc-bench" \
    --tapedeck "$(swift build -c release --show-bin-path)/tapedeck" --calls "$calls" --rounds "$rounds"
