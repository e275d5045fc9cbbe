import Foundation
import TapedeckTestSupport
import TapedeckCore

/// Paths and temporary folders the tests share.
enum Fixtures {
    /// The package root, found from this file.
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The example cassette of the repository.
    static let exampleCassette = packageRoot.appending(path: "cassettes/example.json")

    /// The example cassette decoded, to compare served bytes with.
    static func example() throws -> Cassette { try CassetteCodec().load(exampleCassette) }

    /// A fresh temporary folder in ``TestFiles/folder``, removed by the caller with `cleanUp` (or with the run's folder).
    static func temporaryDirectory() throws -> URL {
        let url = TestFiles.folder.appending(path: "tapedeck-server-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a hand-written cassette into a folder and returns its URL.
    static func writeCassette(_ json: String, named name: String, in directory: URL) throws -> URL {
        let url = directory.appending(path: name)
        try Data(json.utf8).write(to: url)
        return url
    }

    /// A two-interaction cassette where the same GET is answered "one" then "two".
    static let counterCassette = #"""
    {"version": 1, "meta": {}, "interactions": [
      {"request": {"method": "GET", "url": "http://api.example.test/counter"},
       "response": {"status": 200, "headers": {"Content-Type": ["text/plain"]}, "body": {"text": "one"}},
       "timing": {"firstByteMs": 20, "totalMs": 30}},
      {"request": {"method": "GET", "url": "http://api.example.test/counter"},
       "response": {"status": 200, "headers": {"Content-Type": ["text/plain"]}, "body": {"text": "two"}},
       "timing": {"firstByteMs": 40, "totalMs": 60}}
    ]}
    """#

    /// A cassette recorded over HTTPS, for the CONNECT interception tests.
    static let secureCassette = #"""
    {"version": 1, "meta": {}, "interactions": [
      {"request": {"method": "GET", "url": "https://secure.example.test/hello?lang=en"},
       "response": {"status": 200, "headers": {"Content-Type": ["text/plain"]}, "body": {"text": "hello over tls"}}},
      {"request": {"method": "POST", "url": "https://secure.example.test:8443/items",
                   "headers": {"Content-Type": ["application/json"]}, "body": {"json": {"name": "x", "nonce": 1}}},
       "response": {"status": 201, "headers": {"Content-Type": ["application/json"]}, "body": {"json": {"created": true}}}}
    ]}
    """#

    /// A cassette exercising the matching options.
    static let optionsCassette = #"""
    {"version": 1, "meta": {}, "interactions": [
      {"request": {"method": "GET", "url": "http://api.example.test/search?q=swift&cache=123"},
       "response": {"status": 200, "body": {"text": "search results"}}},
      {"request": {"method": "POST", "url": "http://api.example.test/events",
                   "headers": {"Content-Type": ["application/json"]},
                   "body": {"json": {"kind": "click", "meta": {"requestId": "abc", "nonce": 7}}}},
       "response": {"status": 202, "body": {"text": "accepted"}}},
      {"request": {"method": "GET", "url": "http://api.example.test/versioned", "headers": {"X-Version": ["2"]}},
       "response": {"status": 200, "body": {"text": "version two"}}},
      {"request": {"method": "GET", "url": "http://api.example.test/versioned", "headers": {"X-Version": ["1"]}},
       "response": {"status": 200, "body": {"text": "version one"}}}
    ]}
    """#
}

/// A fixture that could not be found or made.
struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
