// swift-tools-version: 6.1
import PackageDescription

// An outside package, as a user would write it: the README's "Package.swift" snippet, with a
// path dependency instead of the URL (CI reaches no GitHub). It replays the same cassette through every
// client door (URLSession injected and shared, AsyncHTTPClient, the OpenAPI transport, the Swift
// Testing trait). `package:` names a dependency by its identity: for the URL it is "tapedeck"; for a
// path it is the folder's name (which depends on where the repository was cloned), so `name:` sets it.
let package = Package(
    name: "ConnectorReach",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    dependencies: [
        // The traits of the products used beyond Tapedeck and TapedeckTesting (which need none);
        // the server's and the tooling's dependencies stay out of resolution.
        .package(name: "tapedeck", path: "../..", traits: ["AsyncHTTPClient", "OpenAPI"]),
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
                .product(name: "TapedeckAsyncHTTPClient", package: "tapedeck"),
            ]
        ),
        .testTarget(
            name: "GreetingKitTests",
            dependencies: [
                "GreetingKit",
                .product(name: "Tapedeck", package: "tapedeck"),
                .product(name: "TapedeckTesting", package: "tapedeck"),
                .product(name: "TapedeckOpenAPI", package: "tapedeck"),
                .product(name: "TapedeckAsyncHTTPClient", package: "tapedeck"),
            ],
            // The cassettes go into the test bundle (`Bundle.module`); beside the tests without this line,
            // SwiftPM warns about unhandled files.
            resources: [.copy("cassettes")]
        ),
    ]
)
