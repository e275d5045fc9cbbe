// swift-tools-version: 6.1
import PackageDescription

// Benchmarks, kept out of the products users see (as SwiftNIO keeps its own in Benchmarks/):
// the connector benchmark and the bare SwiftNIO server that is the server benchmark's baseline.
// scripts/bench-connector.sh and scripts/bench-server.sh build them here in release mode.
let package = Package(
    name: "TapedeckBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tapedeck-bench", targets: ["ConnectorBenchmark"]),
        .executable(name: "bare-server", targets: ["BareServer"]),
        .executable(name: "tapedeck-grpc-bench", targets: ["GRPCBenchmark"]),
    ],
    dependencies: [
        .package(name: "Tapedeck", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
    ],
    targets: [
        // Connector replay: time per request for small and large cassettes and for stubs (release mode).
        .executableTarget(
            name: "ConnectorBenchmark",
            dependencies: [
                .product(name: "Tapedeck", package: "Tapedeck"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "ConnectorBenchmark"
        ),
        // A replayed unary gRPC call in process against the same call through `tapedeck replay`.
        .executableTarget(
            name: "GRPCBenchmark",
            dependencies: [
                .product(name: "Tapedeck", package: "Tapedeck"),
                .product(name: "TapedeckGRPC", package: "Tapedeck"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCInProcessTransport", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
            ],
            path: "GRPCBenchmark"
        ),
        // The baseline of the server benchmarks: SwiftNIO answering one fixed response, over HTTP/1.1 or HTTP/2.
        .executableTarget(
            name: "BareServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "BareServer"
        ),
    ]
)
