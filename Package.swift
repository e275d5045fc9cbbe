// swift-tools-version: 6.1
import PackageDescription

// One target per dependency boundary, so a user pays only for what they import:
// the connector (`Tapedeck`) needs no SwiftNIO and no swift-crypto; AsyncHTTPClient and SwiftNIO come
// in only with `TapedeckAsyncHTTPClient`; the servers live in `TapedeckServer`.
//
// Package traits keep a connector user's resolution light too. Every product of another package that
// only the server, the tooling, the AsyncHTTPClient or the OpenAPI part uses is named under that
// part's trait, so a package that depends on this one with `traits: []` resolves swift-http-types
// alone (SwiftPM 6.2 and later leave out a package whose every use is behind a trait that is off).
// The core's GraphQL matching (GraphQLSwift, under the `GraphQL` trait) is kept out the same way.
// All are on by default: this package's own build and tests, and a dependent that names no
// traits, see every target as before. Test targets need no condition: a dependent never resolves
// what only they use.

/// Uses of other packages' products that only the replay server, the recording proxy and the
/// `tapedeck` command need.
let server: TargetDependencyCondition? = .when(traits: ["Server"])
/// Uses that only the cassette tooling (`TapedeckTooling`) needs.
let tooling: TargetDependencyCondition? = .when(traits: ["Tooling"])
/// Uses that only `TapedeckAsyncHTTPClient` needs.
let asyncHTTPClient: TargetDependencyCondition? = .when(traits: ["AsyncHTTPClient"])
/// Uses that only `TapedeckOpenAPI` needs.
let openAPI: TargetDependencyCondition? = .when(traits: ["OpenAPI"])
/// Uses that only `TapedeckGRPC` needs.
let grpc: TargetDependencyCondition? = .when(traits: ["GRPC"])
/// Uses of SwiftNIO shared by the servers and `TapedeckAsyncHTTPClient` (`TapedeckNIO`): both
/// traits turn this one on.
let swiftNIO: TargetDependencyCondition? = .when(traits: ["SwiftNIO"])

let package = Package(
    name: "Tapedeck",
    // The lowest the connector's APIs allow: `Clock`/`Duration`, `URL(filePath:)`, `TimeZone.gmt`.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Tapedeck", targets: ["Tapedeck"]),
        .library(name: "TapedeckTesting", targets: ["TapedeckTesting"]),
        .library(name: "TapedeckOpenAPI", targets: ["TapedeckOpenAPI"]),
        .library(name: "TapedeckAsyncHTTPClient", targets: ["TapedeckAsyncHTTPClient"]),
        .library(name: "TapedeckGRPC", targets: ["TapedeckGRPC"]),
        .library(name: "TapedeckGRPCTesting", targets: ["TapedeckGRPCTesting"]),
        // The servers, for the fuzz package in Fuzz/ (which depends on this one by path): only its
        // `@_spi(Fuzz)` door, `FuzzedReplayServer`, is public; the rest is `package`.
        .library(name: "TapedeckServer", targets: ["TapedeckServer"]),
        .executable(name: "tapedeck", targets: ["TapedeckCLI"]),
    ],
    traits: [
        .trait(name: "Server", description: "TapedeckServer and, with Tooling, the tapedeck command: SwiftNIO, swift-nio-ssl, swift-certificates, swift-crypto, swift-argument-parser, AsyncHTTPClient (for drift).",
               enabledTraits: ["SwiftNIO"]),
        .trait(name: "Tooling", description: "TapedeckTooling (inspect, lint, redact, HAR and VCR import, descriptor sets, OpenAPI documents): Yams, swift-protobuf, OpenAPIKit."),
        .trait(name: "AsyncHTTPClient", description: "TapedeckAsyncHTTPClient: AsyncHTTPClient and SwiftNIO.",
               enabledTraits: ["SwiftNIO"]),
        .trait(name: "SwiftNIO", description: "TapedeckNIO, the SwiftNIO and AsyncHTTPClient parts the servers and TapedeckAsyncHTTPClient share (on with either)."),
        .trait(name: "OpenAPI", description: "TapedeckOpenAPI: swift-openapi-runtime."),
        .trait(name: "GRPC", description: "TapedeckGRPC: grpc-swift 2's GRPCCore (macOS 15, iOS 18 and matching)."),
        .trait(name: "GraphQL", description: "GraphQL requests matched by their operation in the core (TapedeckCore/GraphQL): GraphQLSwift's GraphQL and swift-collections."),
        .default(enabledTraits: ["Server", "Tooling", "AsyncHTTPClient", "OpenAPI", "GRPC", "GraphQL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit.git", from: "6.4.0"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // grpc-swift 2: GRPCCore for TapedeckGRPC (the GRPC trait); the NIO transport only for tests, as a real client.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.2"),
        // Only for tests: the runtime of the committed generated client (Tests/TapedeckGRPCSwiftTests/Generated).
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
        // GraphQLSwift: parsing GraphQL queries in the core, for matching by operation (the GraphQL trait).
        .package(url: "https://github.com/GraphQLSwift/GraphQL.git", from: "4.3.0"),
    ],
    targets: [
        // zlib, for gzip and deflate bodies: the system library, no SwiftNIO.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // SHA-256 on Linux: the system's OpenSSL libcrypto (Apple platforms use CommonCrypto).
        .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl-dev"])]),
        // SIGINT and SIGTERM into a pipe, from a handler installed before the server listens.
        .target(name: "CSignalPipe"),
        // One C call Swift's Glibc module does not expose: swapping two files atomically.
        .target(name: "CRenameExchange"),
        // glibc's allocator settings for the replay server, which Swift's Glibc module does not export.
        .target(name: "CAllocatorTuning"),
        // The shared core: cassette format, matching, playback, latency, redaction, recording.
        .target(
            name: "TapedeckCore",
            dependencies: [
                "CZlib",
                "CRenameExchange",
                .target(name: "CLibCrypto", condition: .when(platforms: [.linux, .android])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "GraphQL", package: "GraphQL", condition: .when(traits: ["GraphQL"])),
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
        // Swift Testing trait and XCTest helper: a cassette per test.
        .target(name: "TapedeckTesting", dependencies: ["Tapedeck"]),
        // swift-openapi-runtime ClientTransport and recording middleware.
        .target(
            name: "TapedeckOpenAPI",
            dependencies: [
                "Tapedeck",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
            ]
        ),
        // SwiftNIO parts shared by the servers and TapedeckAsyncHTTPClient: upstream sockets, the
        // WebSocket client upgrade and message reader, and live requests through AsyncHTTPClient.
        .target(
            name: "TapedeckNIO",
            dependencies: [
                "TapedeckCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio", condition: swiftNIO),
                .product(name: "NIOPosix", package: "swift-nio", condition: swiftNIO),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: swiftNIO),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: swiftNIO),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: swiftNIO),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: swiftNIO),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: swiftNIO),
            ]
        ),
        // Replaying and recording clients for code written against AsyncHTTPClient, and the live
        // WebSocket connector on SwiftNIO.
        .target(
            name: "TapedeckAsyncHTTPClient",
            dependencies: [
                "Tapedeck",
                "TapedeckNIO",
                .product(name: "NIOPosix", package: "swift-nio", condition: asyncHTTPClient),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: asyncHTTPClient),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: asyncHTTPClient),
                .product(name: "NIOCore", package: "swift-nio", condition: asyncHTTPClient),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: asyncHTTPClient),
                .product(name: "Logging", package: "swift-log", condition: asyncHTTPClient),
            ]
        ),
        // grpc-swift 2 transports that replay and record gRPC calls in process.
        .target(
            name: "TapedeckGRPC",
            dependencies: [
                "Tapedeck",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: grpc),
            ]
        ),
        // TestCassette's gRPC transport, for the test helpers: apart, so TapedeckTesting brings no grpc-swift.
        .target(name: "TapedeckGRPCTesting", dependencies: ["TapedeckGRPC", "TapedeckTesting"]),
        // Cassette tooling: inspect, lint, redact, prune, merge, drift, HAR and VCR import.
        .target(
            name: "TapedeckTooling",
            dependencies: [
                "TapedeckCore",
                .product(name: "Yams", package: "Yams", condition: tooling),
                // OpenAPI documents' structure, 3.0 and 3.1 (`tapedeck openapi`).
                .product(name: "OpenAPIKit", package: "OpenAPIKit", condition: tooling),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit", condition: tooling),
                // Descriptor sets only (`--proto-descriptor-set`); no generated code, no plugin.
                .product(name: "SwiftProtobuf", package: "swift-protobuf", condition: tooling),
            ]
        ),
        // The replay server and the recording proxy on SwiftNIO.
        .target(
            name: "TapedeckServer",
            dependencies: [
                "TapedeckCore",
                "TapedeckNIO",
                "CAllocatorTuning",
                "CSignalPipe",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: server),
                .product(name: "NIOTLS", package: "swift-nio", condition: server),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: server),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: server),
                .product(name: "NIOExtras", package: "swift-nio-extras", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "X509", package: "swift-certificates", condition: server),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: server),
                .product(name: "Crypto", package: "swift-crypto", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
            ]
        ),
        // The command line: parse, build a configuration, run.
        .executableTarget(
            name: "TapedeckCLI",
            dependencies: [
                "TapedeckServer",
                "TapedeckTooling",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                // `tapedeck drift`'s client: no Foundation networking (and no libcurl) in the binary.
                "TapedeckNIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
            ]
        ),
        // The example API client of Examples/, tested entirely from cassettes.
        .target(name: "ExampleAPIClient", dependencies: ["Tapedeck"], path: "Examples/APIClient/Sources"),
        .testTarget(
            name: "ExampleAPIClientTests",
            dependencies: ["ExampleAPIClient", "TapedeckTesting"],
            path: "Examples/APIClient/Tests",
            resources: [.copy("cassettes")]
        ),
        // A URLSession client in a child process, for sending URLSession through the forward proxy.
        .executableTarget(name: "URLSessionProxyProbe", path: "Tests/URLSessionProxyProbe"),
        // What several test targets share: child processes (spawned without Foundation's `Process`), upstreams.
        .target(name: "TapedeckTestSupport", dependencies: ["CSpawnActions"], path: "Tests/TapedeckTestSupport"),
        // Two `posix_spawn` file actions Swift's Glibc module does not expose, for the tests' child processes.
        .target(name: "CSpawnActions", path: "Tests/CSpawnActions"),
        .testTarget(
            name: "TapedeckCoreTests",
            dependencies: [
                "TapedeckCore",
                "TapedeckTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "TapedeckTests", dependencies: ["Tapedeck", "TapedeckTestSupport"]),
        .testTarget(name: "TapedeckTestingTests", dependencies: ["TapedeckTesting", "TapedeckTestSupport"]),
        .testTarget(
            name: "TapedeckAsyncHTTPClientTests",
            dependencies: [
                "TapedeckAsyncHTTPClient",
                "TapedeckTesting",
                "TapedeckTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "TapedeckOpenAPITests", dependencies: ["TapedeckOpenAPI", "TapedeckTestSupport"]),
        .testTarget(
            name: "TapedeckToolingTests", dependencies: ["TapedeckTooling", "TapedeckTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "TapedeckServerTests",
            dependencies: [
                "TapedeckServer",
                "TapedeckNIO",
                "Tapedeck",
                "TapedeckTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Load, faults, hostile input and safe defaults; the heavy load tests run only with TAPEDECK_HARDENING=1.
        .testTarget(
            name: "TapedeckHardeningTests",
            dependencies: [
                "TapedeckServer",
                "TapedeckCore",
                "TapedeckTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // grpc-swift 2 against `tapedeck record` and `tapedeck replay`, run as the CLI.
        .testTarget(
            name: "TapedeckGRPCSwiftTests",
            dependencies: [
                "TapedeckCore",
                "TapedeckGRPC",
                "TapedeckGRPCTesting",
                "TapedeckTesting",
                "TapedeckTestSupport",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
    ]
)
