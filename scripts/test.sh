#!/usr/bin/env bash
# The README's test command: on a Debian or Ubuntu machine with Swift, installs what the tests use
# besides Swift when any of it is missing (system packages with apt-get, as root or through sudo;
# Python modules with pip), then runs `swift test` with the arguments given:
#   scripts/test.sh                              # every test
#   scripts/test.sh --filter StubServerTests     # one suite
# A bare `swift test` runs without this set-up: each test whose tool is missing is skipped, naming
# the tool (Tests/TapedeckTestSupport/Tool.swift). .ci/run runs this script.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# Each entry is PACKAGE:PROBE, the Debian package and what shows it is there (a command on the PATH
# or a file), so that a tool installed another way (a Python of pyenv's, say) counts too.
# zlib and OpenSSL headers build the package; curl and python3 are real clients and upstreams in the
# tests; openssl inspects test certificates; chromium (headless) renders the inspector page; nghttp
# and h2load (nghttp2-client) open several HTTP/2 streams at once; nginx balances two replay servers
# in the scale-out test; Java's HttpClient (default-jdk-headless) is a client through the
# intercepting proxy.
packages=(
    zlib1g-dev:/usr/include/zlib.h libssl-dev:/usr/include/openssl/ssl.h curl:curl python3:python3 openssl:openssl
    ca-certificates:/etc/ssl/certs/ca-certificates.crt chromium:chromium nghttp2-client:nghttp nginx-light:/usr/sbin/nginx
    default-jdk-headless:java
)
missing=()
for entry in "${packages[@]}"; do
    package="${entry%%:*}" probe="${entry#*:}"
    if [[ "$probe" == /* ]]; then [ -e "$probe" ] && continue; else command -v "$probe" >/dev/null 2>&1 && continue; fi
    missing+=("$package")
done
if ! python3 -m pip --version >/dev/null 2>&1; then missing+=(python3-pip); fi
if [ ${#missing[@]} -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "test: missing ${missing[*]} (Debian package names), and no apt-get to install them: the tests that need them are skipped" >&2
    else
        sudo=()
        if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
        export DEBIAN_FRONTEND=noninteractive
        "${sudo[@]}" apt-get update
        "${sudo[@]}" apt-get install -y "${missing[@]}"
        "${sudo[@]}" apt-get clean   # the downloaded packages: room for the builds
    fi
fi

# The JSON Schema checks use Python's jsonschema (and openapi-spec-validator for the admin API's
# document); the gRPC tests' client and upstream are grpcio; the WebSocket tests' client and
# service are websockets; requests and httpx (with h2, its HTTP/2) are clients through the
# intercepting proxy; graphql-core judges the GraphQL parser. Each entry is PACKAGE:MODULE (what
# pip installs, what Python imports).
if command -v python3 >/dev/null 2>&1; then
    for entry in jsonschema:jsonschema openapi-spec-validator:openapi_spec_validator grpcio:grpc websockets:websockets \
                 requests:requests httpx:httpx h2:h2 graphql-core:graphql; do
        package="${entry%%:*}" module="${entry##*:}"
        if ! python3 -c "import $module" >/dev/null 2>&1; then
            python3 -m pip install --quiet --no-cache-dir "$package" \
                || python3 -m pip install --quiet --no-cache-dir --break-system-packages "$package"
        fi
    done
fi

swift test "$@"
