import Foundation
import Testing

/// A program or Python module that some tests run besides Swift (curl, nghttp, Python's grpcio):
/// a test that needs one marks it with ``Testing/Trait/requires(_:)``, and is skipped, naming what
/// is missing and how to install it, on a machine without it. `scripts/test.sh` installs them all.
public struct Tool: Sendable, CustomStringConvertible {
    /// What the tool is called in the reason for a skip: `nghttp`, `Python's grpc`.
    public let name: String
    /// How to install it on Debian or Ubuntu.
    public let installation: String
    /// Whether this machine has it.
    public let isInstalled: Bool

    public var description: String { name }

    /// A program looked up on the `PATH`, from the Debian package `package`.
    public static func command(_ name: String, package: String? = nil) -> Tool {
        Tool(name: name, installation: "apt-get install -y \(package ?? name)", isInstalled: path(of: name) != nil)
    }

    /// A module Python 3 imports (`grpc`), from the pip package `package` (`grpcio`; by default the module's name).
    public static func python(_ module: String, package: String? = nil) -> Tool {
        let imports = python3.isInstalled
            && ((try? ChildProcess.run(URL(filePath: "/usr/bin/env"), ["python3", "-c", "import \(module)"], timeout: 60))?.status == 0)
        return Tool(name: "Python's \(module)", installation: "python3 -m pip install \(package ?? module)", isInstalled: imports)
    }

    /// curl, the HTTP client most server tests use.
    public static let curl = command("curl")
    /// Python 3, for the upstreams and clients written in Python (`scripts/*.py`).
    public static let python3 = command("python3")
    /// nghttp, an HTTP/2 client (nghttp2-client).
    public static let nghttp = command("nghttp", package: "nghttp2-client")
    /// h2load, an HTTP/2 load generator (nghttp2-client).
    public static let h2load = command("h2load", package: "nghttp2-client")
    /// openssl, which makes and reads test certificates.
    public static let openssl = command("openssl")
    /// Python's gRPC (grpcio): the gRPC tests' client and upstream.
    public static let grpcio = python("grpc", package: "grpcio")
    /// Python's websockets: the WebSocket tests' client and upstream.
    public static let websockets = python("websockets")
    /// Python's jsonschema: the JSON Schema check of cassettes (`scripts/validate_cassettes.py`).
    public static let jsonschema = python("jsonschema")
    /// Python's openapi-spec-validator: the check of the admin API's OpenAPI document.
    public static let openAPISpecValidator = python("openapi_spec_validator", package: "openapi-spec-validator")
    /// Python's httpx, with h2 for its HTTP/2, and requests: clients through the intercepting proxy.
    public static let httpx = python("httpx")
    /// Python's h2, httpx's HTTP/2.
    public static let h2 = python("h2")
    /// Python's requests.
    public static let requests = python("requests")
    /// Python's graphql-core: the outside judge of which GraphQL documents parse (`scripts/graphql_judge.py`).
    public static let graphqlCore = python("graphql", package: "graphql-core")

    /// Why a test that needs `tools` is skipped: each missing one once, with how to install it;
    /// nil when none is missing. A Python module is not named when Python itself is missing.
    public static func missing(_ tools: [Tool]) -> String? {
        var missing = tools.filter { !$0.isInstalled }
        if missing.contains(where: { $0.name.hasPrefix("Python's ") }) && !python3.isInstalled {
            missing = missing.filter { !$0.name.hasPrefix("Python's ") } + [python3]
        }
        var named: [String] = []
        for tool in missing where !named.contains(where: { $0.hasPrefix(tool.name + " ") }) {
            named.append("\(tool.name) (\(tool.installation))")
        }
        guard !named.isEmpty else { return nil }
        return "not installed: \(named.joined(separator: ", ")); scripts/test.sh installs what the tests use"
    }

    /// The first executable file named one of `names` in the folders of the `PATH`, if any.
    public static func path(of names: String...) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for folder in folders {
            for name in names where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test (or every test of the suite) only where each of `tools` is installed; elsewhere
    /// it is skipped, the reason naming each missing tool once and how to install it.
    public static func requires(_ tools: Tool...) -> Self {
        let reason = Tool.missing(tools)
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? "needs \(tools.map(\.name).joined(separator: ", "))"))
    }
}
