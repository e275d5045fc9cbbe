# Sourced by the server benchmarks: builds `tapedeck` and the bare SwiftNIO server in release mode
# and sets BIN and BENCH_BIN to the folders that hold them.
echo "building the release binaries..." >&2
swift build -c release --product tapedeck >&2
swift build -c release --package-path Benchmarks --product bare-server >&2
BIN="$(swift build -c release --show-bin-path)"
BENCH_BIN="$(swift build -c release --package-path Benchmarks --show-bin-path)"
