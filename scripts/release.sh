#!/usr/bin/env bash
# Builds the release archive of the `tapedeck` command, for machines without a Swift toolchain:
#   dist/tapedeck-VERSION-linux-ARCH.tar.gz
# holding the binary (the Swift runtime and Foundation linked in statically, `--static-swift-stdlib`),
# LICENSE, a short README, the example cassette its quick start serves (cassettes/example.json) and
# the shell completions that ArgumentParser generates (bash, zsh, fish).
# VERSION is what `tapedeck --version` prints. Before packing, it checks that the binary runs with an
# empty environment and that `ldd` lists no Swift runtime library and no libcurl (the command links no
# Foundation networking); it fails if either is not so.
# The build uses its own folder, .build-release, so it leaves the debug build in .build alone.
# Before building it checks what the build needs (the C libraries it links, `strip`) and names the
# Debian packages to install for what is missing: zlib's and OpenSSL's development files.
# Usage: scripts/release.sh        (prints the archive's path last)
# Environment: TAPEDECK_RELEASE_BINARY=PATH packs that binary instead of building one (no build, no
# static-runtime check: for checking what the archive holds); TAPEDECK_RELEASE_DIST=DIR writes the
# archive there instead of dist/; CC names the C compiler that probes the libraries (default clang).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

# check_prerequisites: fails naming the Debian package of each thing the build needs and lacks. A
# library counts as there when the C compiler links a program with it, as the release link will.
check_prerequisites() {
    local missing=() cc="${CC:-clang}" probe entry library package
    command -v "$cc" >/dev/null 2>&1 || cc=cc
    command -v swift >/dev/null 2>&1 || missing+=("swift (a Swift toolchain, from swift.org)")
    command -v strip >/dev/null 2>&1 || missing+=(binutils)
    probe="$(mktemp -d)"
    for entry in z:zlib1g-dev crypto:libssl-dev; do
        library="${entry%%:*}" package="${entry#*:}"
        printf 'int main(void) { return 0; }\n' > "$probe/probe.c"
        "$cc" "$probe/probe.c" -o "$probe/probe" "-l$library" >/dev/null 2>&1 || missing+=("$package")
    done
    rm -rf "$probe"
    if [ ${#missing[@]} -gt 0 ]; then
        echo "release: the build needs what is missing here; install it first:" >&2
        echo "  apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

if [ -n "${TAPEDECK_RELEASE_BINARY:-}" ]; then
    binary="$TAPEDECK_RELEASE_BINARY"
else
    check_prerequisites
    build=(swift build -c release --product tapedeck --static-swift-stdlib --scratch-path .build-release)
    "${build[@]}"
    binary="$("${build[@]}" --show-bin-path)/tapedeck"
fi

version="$("$binary" --version)"
arch="$(uname -m)"
name="tapedeck-$version-linux-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
folder="$stage/$name"
mkdir -p "$folder/completions" "$folder/cassettes"

# The debug symbols stay in .build-release; the archive gets a stripped copy.
cp "$binary" "$folder/tapedeck"
strip "$folder/tapedeck"
cp LICENSE "$folder/LICENSE"
cp cassettes/example.json "$folder/cassettes/example.json"
sed "s/@VERSION@/$version/g" packaging/archive/README.md > "$folder/README.md"
"$folder/tapedeck" --generate-completion-script bash > "$folder/completions/tapedeck.bash"
"$folder/tapedeck" --generate-completion-script zsh > "$folder/completions/_tapedeck"
"$folder/tapedeck" --generate-completion-script fish > "$folder/completions/tapedeck.fish"

# What a machine without Swift needs: it starts with nothing set, and links no Swift runtime library.
bare="$(cd "$folder" && env -i ./tapedeck --version)"
if [ "$bare" != "$version" ]; then
    echo "release: with an empty environment, ./tapedeck --version printed '$bare', not '$version'" >&2
    exit 1
fi
if [ -z "${TAPEDECK_RELEASE_BINARY:-}" ] && ldd "$folder/tapedeck" | grep -E 'libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime'; then
    echo "release: the binary still links the Swift runtime dynamically (above)" >&2
    exit 1
fi
if [ -z "${TAPEDECK_RELEASE_BINARY:-}" ] && ldd "$folder/tapedeck" | grep -E 'libcurl'; then
    echo "release: the binary links libcurl (above): some module it is made of imports FoundationNetworking" >&2
    exit 1
fi

dist="${TAPEDECK_RELEASE_DIST:-dist}"
mkdir -p "$dist"
archive="$dist/$name.tar.gz"
tar -C "$stage" -czf "$archive" "$name"
echo "$archive"
