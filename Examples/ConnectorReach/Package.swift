// swift-tools-version: 6.1
import PackageDescription

// An outside package, as a user would write it: it depends on Tapedeck's products by path and
// replays the same cassette through every client door (URLSession injected and shared,
// AsyncHTTPClient, the OpenAPI transport, the Swift Testing trait).
let package = Package(
    name: "ConnectorReach",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [
        .package(name: "Tapedeck", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // The code under test: one small greeting client per HTTP stack.
        .target(
            name: "GreetingKit",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "TapedeckAsyncHTTPClient", package: "Tapedeck"),
            ]
        ),
        .testTarget(
            name: "GreetingKitTests",
            dependencies: [
                "GreetingKit",
                .product(name: "Tapedeck", package: "Tapedeck"),
                .product(name: "TapedeckTesting", package: "Tapedeck"),
                .product(name: "TapedeckOpenAPI", package: "Tapedeck"),
                .product(name: "TapedeckAsyncHTTPClient", package: "Tapedeck"),
            ],
            resources: [.copy("cassettes")]
        ),
    ]
)
