// A URLSession client in its own process, for tests that send URLSession through a proxy:
// FoundationNetworking takes its proxy from the `http_proxy` environment variable (libcurl),
// which a test must not set in its own, shared process.
//
//     http_proxy=http://127.0.0.1:PORT URLSessionProxyProbe URL
//
// Prints the status on the first line and the body in base64 on the second.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: URLSessionProxyProbe URL\n".utf8))
    exit(2)
}
do {
    let (data, response) = try await URLSession(configuration: .ephemeral).data(from: url)
    print((response as? HTTPURLResponse)?.statusCode ?? 0)
    print(data.base64EncodedString())
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
