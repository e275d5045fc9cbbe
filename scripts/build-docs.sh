#!/usr/bin/env bash
# Builds the DocC documentation of the library products with the toolchain's `docc`, and fails on
# any docc warning (an unresolved link, an undocumented parameter, a Topics entry naming nothing).
# No swift-docc-plugin: the package gains no dependency, so a connector user's resolution stays light.
#
#   1. A debug build of the products' targets in .build-docs, in which the compiler also writes each
#      module's symbol graph: public symbols, with extensions of other modules' types (such as
#      URLSessionConfiguration.replaying) as extension blocks, the form docc documents.
#   2. Per product, `docc convert` of Sources/<Product>/<Product>.docc with that module's graphs
#      only, never those of SwiftNIO or another dependency. `Tapedeck` re-exports TapedeckCore, whose
#      public types the compiler puts in Tapedeck's own graph: they are documented there. The other
#      products link to them absolutely (``/Tapedeck/CassetteConnector``), resolved against the
#      Tapedeck archive, built first (docc's `--dependency`).
#
# Usage: scripts/build-docs.sh [OUTPUT]   writes OUTPUT/<Product>.doccarchive (default .build-docs/docs)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
docc="$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")"

# Tapedeck first: the others resolve their links against its archive.
products=(Tapedeck TapedeckTesting TapedeckOpenAPI TapedeckGRPC TapedeckAsyncHTTPClient)
scratch=.build-docs
graphs="$PWD/$scratch/symbol-graphs"   # kept between runs: a module not recompiled writes none
output="${1:-$scratch/docs}"
mkdir -p "$graphs" "$output"
output="$(cd "$output" && pwd)"

start=$SECONDS
for product in "${products[@]}"; do
    # Every trait on, so each product's target compiles whatever the default traits become.
    swift build --scratch-path "$scratch" --enable-all-traits --target "$product" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
        -Xswiftc -emit-extension-block-symbols
done
built=$SECONDS

for product in "${products[@]}"; do
    # The product's module graph and its extension graphs (<Product>@<ExtendedModule>.symbols.json).
    own="$scratch/docs-symbol-graphs/$product"
    rm -rf "$own" "$output/$product.doccarchive"
    mkdir -p "$own"
    cp "$graphs/$product.symbols.json" "$own/"
    find "$graphs" -maxdepth 1 -name "$product@*.symbols.json" -exec cp {} "$own/" \;
    dependency=()
    [ "$product" = Tapedeck ] || dependency=(--dependency "$output/Tapedeck.doccarchive")
    echo "== docc convert $product"
    "$docc" convert "Sources/$product/$product.docc" \
        --additional-symbol-graph-dir "$own" \
        --fallback-display-name "$product" \
        --fallback-bundle-identifier "dev.tapedeck.$product" \
        --enable-experimental-external-link-support "${dependency[@]}" \
        --warnings-as-errors \
        --output-path "$output/$product.doccarchive"
done
echo "documentation: $output (${#products[@]} archives; build $((built - start)) s, docc $((SECONDS - built)) s)"
