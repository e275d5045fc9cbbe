#!/usr/bin/env bash
# How long a user's clean build takes when their package depends only on the `Tapedeck` product:
# an outside package in a temporary folder, depending on this repository by path with no package
# traits (`traits: []`, as the README's snippet for connector users), with an empty .build, timed
# through `swift package resolve` (cloning the packages from the local cache) and `swift build`.
# Fails if resolution fetched any package but those the connector imports ($connector_packages).
# Prints one line:
#   light build: N.N s (resolve R.R s + build B.B s; resolved: swift-http-types; goal: under 25 s on a 2-core machine)
# Then checks what `import Tapedeck` shows a user: the connector, the cassette model and the options
# (`$visible` must compile), and none of the internals (`$hidden` must each be "not in scope").
# Usage: scripts/measure-light-build.sh [RUNS]   (default 1; with more, each run is printed and the median last)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-1}"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
# The packages the connector imports: all that resolution may fetch with the traits off.
connector_packages="swift-http-types"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/LightUser"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "LightUser",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "$root", traits: [])],
    targets: [.executableTarget(name: "LightUser", dependencies: [.product(name: "Tapedeck", package: "$(basename "$root")")])]
)
SWIFT
cat > "$work/Sources/LightUser/main.swift" <<'SWIFT'
import Foundation
import HTTPTypes
import Tapedeck

let cassette = Cassette(interactions: [Interaction(
    request: CassetteRequest(method: "GET", url: "http://api.example.test/hello"),
    response: CassetteResponse(status: 200, body: Body(text: "hello")))])
let (_, data) = try await CassetteConnector(cassette: cassette).send(
    HTTPRequest(method: .get, scheme: "http", authority: "api.example.test", path: "/hello"), body: nil)
print(String(decoding: data, as: UTF8.self))
SWIFT
results=()
for run in $(seq 1 "$runs"); do
    rm -rf "$work/.build"
    start=$(date +%s.%N)
    (cd "$work" && swift package resolve >"$work/build.log" 2>&1) || { cat "$work/build.log"; exit 1; }
    resolved=$(date +%s.%N)
    fetched="$(ls "$work/.build/checkouts" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')"
    if [ "$fetched" != "$connector_packages" ]; then
        echo "resolution fetched '$fetched', not only what the connector imports ('$connector_packages')" >&2
        exit 1
    fi
    (cd "$work" && swift build >>"$work/build.log" 2>&1) || { cat "$work/build.log"; exit 1; }
    end=$(date +%s.%N)
    line=$(python3 -c "print(f'{$end - $start:.1f} s (resolve {$resolved - $start:.1f} s + build {$end - $resolved:.1f} s; resolved: $fetched')")
    results+=("$line")
    [ "$runs" -gt 1 ] && echo "run $run: $line)"
done
(cd "$work" && [ "$(swift run --skip-build LightUser 2>/dev/null)" = "hello" ]) || { echo "the light package did not replay"; exit 1; }
# The public surface, from outside: one probe file naming both lists, one build that must fail on
# exactly the hidden names.
visible="CassetteConnector RecordingConnector Cassette Interaction CassetteRequest CassetteResponse Body HeaderList Stub StubSet RequestPattern PlaybackOptions MatchOptions LatencyModel RedactionRules Secrets RecordMode PlaybackHooks CassetteCodec UnmatchedRequestError RequestTarget"
hidden="SHA256 Locked BoundedLog SideFileSpool LRUCache Player Recorder Journal Matcher Redactor ConnectorRoute ContentCoding ReplayMode"
{
    echo "import Tapedeck"
    for name in $visible $hidden; do echo "let probe$name: Any.Type = $name.self"; done
} > "$work/Sources/LightUser/Probe.swift"
(cd "$work" && swift build >"$work/probe.log" 2>&1) && { echo "the surface probe compiled: internals are public" >&2; exit 1; }
for name in $hidden; do
    grep -q "cannot find '$name' in scope" "$work/probe.log" || { echo "import Tapedeck shows $name (an internal)" >&2; exit 1; }
done
for name in $visible; do
    if grep "error:" "$work/probe.log" | grep -q "'$name'"; then echo "import Tapedeck does not show $name" >&2; grep "'$name'" "$work/probe.log" >&2; exit 1; fi
done
rm "$work/Sources/LightUser/Probe.swift"
median=$(printf '%s\n' "${results[@]}" | sort -n | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}')
echo "light build: $median; goal: under 25 s on a 2-core machine)"
echo "surface: import Tapedeck shows $(echo $visible | wc -w) checked names and hides $(echo $hidden | wc -w) internals"
