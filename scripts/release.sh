#!/usr/bin/env bash
# Builds the release archive of the `tapedeck` command, for machines without a Swift toolchain:
#   dist/tapedeck-VERSION-linux-ARCH.tar.gz
# holding the binary (the Swift runtime and Foundation linked in statically, `--static-swift-stdlib`),
# LICENSE, a short README and the shell completions that ArgumentParser generates (bash, zsh, fish).
# VERSION is what `tapedeck --version` prints. Before packing, it checks that the binary runs with an
# empty environment and that `ldd` lists no Swift runtime library; it fails if either is not so.
# The build uses its own folder, .build-release, so it leaves the debug build in .build alone.
# Needs libcurl's development files (Debian: libcurl4-openssl-dev): Foundation's networking, linked in
# statically, links libcurl, which stays a shared library of the system.
# Usage: scripts/release.sh        (prints the archive's path last)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

build=(swift build -c release --product tapedeck --static-swift-stdlib --scratch-path .build-release)
"${build[@]}"
binary="$("${build[@]}" --show-bin-path)/tapedeck"

version="$("$binary" --version)"
arch="$(uname -m)"
name="tapedeck-$version-linux-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
folder="$stage/$name"
mkdir -p "$folder/completions"

# The debug symbols stay in .build-release; the archive gets a stripped copy.
cp "$binary" "$folder/tapedeck"
strip "$folder/tapedeck"
cp LICENSE "$folder/LICENSE"
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
if ldd "$folder/tapedeck" | grep -E 'libswift|libFoundation|lib_FoundationICU|libdispatch|libBlocksRuntime'; then
    echo "release: the binary still links the Swift runtime dynamically (above)" >&2
    exit 1
fi

mkdir -p dist
archive="dist/$name.tar.gz"
tar -C "$stage" -czf "$archive" "$name"
echo "$archive"
