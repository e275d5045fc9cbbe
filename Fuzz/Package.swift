// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets, kept out of the main build: `swift build -sanitize=fuzzer` here, or
// scripts/fuzz.sh, which builds and runs each for a bounded time.
let fuzzerFlags: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "TapedeckFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Tapedeck", path: "..")],
    targets: [
        // The cassette decoder: any bytes either decode, or throw a typed CassetteError; a decoded cassette re-encodes and decodes the same.
        .executableTarget(
            name: "CassetteDecoderFuzz",
            dependencies: [.product(name: "Tapedeck", package: "Tapedeck")],
            swiftSettings: fuzzerFlags
        ),
        // The request path: raw bytes through the server's real connection handlers, control headers, matching and diagnosis.
        .executableTarget(
            name: "RequestPathFuzz",
            dependencies: [
                .product(name: "Tapedeck", package: "Tapedeck"),
                .product(name: "TapedeckServer", package: "Tapedeck"),
            ],
            swiftSettings: fuzzerFlags
        ),
    ]
)
