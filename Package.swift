// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Tapedeck",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Tapedeck", targets: ["Tapedeck"]),
        .executable(name: "tapedeck", targets: ["TapedeckCLI"]),
        .executable(name: "tapedeck-bench", targets: ["TapedeckBenchmarks"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // zlib, for gzip and deflate bodies: the system library, no SwiftNIO.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The shared core: cassette format, matching, playback, latency, redaction, recording.
        .target(
            name: "TapedeckCore",
            dependencies: [
                "CZlib",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The in-process connector: replay and record without sockets.
        .target(
            name: "Tapedeck",
            dependencies: [
                "TapedeckCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "TapedeckCLI",
            dependencies: [
                "TapedeckCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "TapedeckBenchmarks",
            dependencies: ["Tapedeck"],
            path: "Benchmarks/ConnectorBenchmark"
        ),
        .testTarget(
            name: "TapedeckCoreTests",
            dependencies: [
                "TapedeckCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "TapedeckTests",
            dependencies: ["Tapedeck"]
        ),
    ]
)
