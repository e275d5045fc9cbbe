import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TapedeckCore

/// The run-time stub API under `/__tapedeck/`: `POST|GET|HEAD|DELETE stubs`, `DELETE stubs/ID` and
/// `POST verify`. A `Tapedeck-Session` header scopes what it adds, removes and verifies to that
/// session. Every rule is the core's ``StubSet``; this only translates HTTP.
struct StubEndpoints: Sendable {
    /// The stubs of the server's cassettes and stub files.
    let stubs: StubSet
    /// What verification shows of the requests it found: the inspector's redaction.
    let redaction: ExchangeRedaction

    /// Answers `stubs`, `stubs/ID` or `verify` with a method they take (``AdminEndpoints`` answers
    /// the others); false when the endpoint is not one of those.
    func respond(to endpoint: Substring, request: IncomingRequest, sink: ResponseSink) -> Bool {
        let session = ControlHeaders(request.head.headerFields).session
        let scope = session.isEmpty ? nil : session
        switch (endpoint, request.head.method) {
        case ("stubs", .post):
            do {
                let added = try Stub.decodeList(from: request.wholeBody)
                let ids = stubs.add(added, session: scope)
                send(.created, ["ids": ids], sink: sink)
            } catch {
                send(.badRequest, ["error": "\(error)".replacingOccurrences(of: "cassette: ", with: "stub: ")], sink: sink)
            }
        case ("stubs", .get), ("stubs", .head):
            send(.ok, StubListing(stubs: stubs.list(session: scope).map(StubListing.Entry.init)), sink: sink)
        case ("stubs", .delete):
            stubs.removeAll(session: scope)
            send(.ok, ["removed": true], sink: sink)
        case (let path, .delete) where path.hasPrefix("stubs/"):
            // The id is a path segment: percent-decoded, so any id a stub was given can be named.
            let segment = String(path.dropFirst("stubs/".count))
            let id = segment.removingPercentEncoding ?? segment
            if stubs.remove(id: id) {
                send(.ok, ["removed": id], sink: sink)
            } else {
                send(.notFound, ["error": "no stub with id \(id)"], sink: sink)
            }
        case ("verify", .post):
            do {
                let pattern = try JSONDecoder().decode(RequestPattern.self, from: request.wholeBody)
                let found: [CassetteRequest] = stubs.verify(pattern, session: scope)
                let requests = found.map { MatchDiagnosis.ReceivedRequest(redaction.clean(request: $0, response: nil).0) }
                send(.ok, Verification(count: requests.count, requests: requests), sink: sink)
            } catch {
                send(.badRequest, ["error": "the request pattern is not valid: \(error)"], sink: sink)
            }
        default:
            return false
        }
        return true
    }

    private func send(_ status: HTTPResponse.Status, _ value: some Encodable, sink: ResponseSink) {
        sink.send(HTTPResponse(status: status, headerFields: [.contentType: "application/json"]),
                  body: ByteBuffer(bytes: JSONBodies.encode(value)))
    }
}

/// `GET /__tapedeck/stubs`: the stubs in lookup order, each as it was written with its id.
struct StubListing: Encodable {
    struct Entry: Encodable {
        let id: String
        let name: String?
        let priority: Int
        let definition: JSONValue?

        init(_ stub: Stub) {
            id = stub.id
            name = stub.name
            priority = stub.priority
            definition = stub.definition
        }
    }

    let stubs: [Entry]
}

/// `POST /__tapedeck/verify`: how many logged requests fit the pattern, and which.
struct Verification: Encodable {
    let count: Int
    let requests: [MatchDiagnosis.ReceivedRequest]
}
