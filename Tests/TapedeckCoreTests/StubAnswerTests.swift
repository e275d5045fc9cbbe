import Foundation
import Testing
@testable import TapedeckCore

/// What stood in a new user's way with stubs (issue "The first hour", points 7 and 8).
@Suite("Stub answers and misses say what they are")
struct StubAnswerTests {
    @Test("a {\"json\": ...} body is served as application/json unless the stub names a type")
    func jsonBodyGetsItsContentType() throws {
        let stubs = try CassetteCodec().decode(Data(#"""
            {"version": 1, "interactions": [], "stubs": [
              {"request": {"path": "/a"}, "response": {"status": 200, "body": {"json": {"id": 1}}}},
              {"request": {"path": "/b"}, "response": {"status": 200, "headers": {"Content-Type": ["application/vnd.api+json"]}, "body": {"json": {"id": 2}}}},
              {"request": {"path": "/c"}, "response": {"status": 200, "body": {"text": "plain"}}}]}
            """#.utf8)).stubs
        func contentType(_ stub: Stub) -> String? {
            if case .response(let response) = stub.answer { return response.headers["Content-Type"] }
            return "computed"
        }
        #expect(contentType(stubs[0]) == "application/json")
        #expect(contentType(stubs[1]) == "application/vnd.api+json")
        #expect(contentType(stubs[2]) == nil)
    }

    @Test("a miss on a stub of another session says so, and a scenario miss names the states")
    func missesNameTheSessionOrTheScenarioState() {
        let set = StubSet()
        set.add([Stub(name: "mine", request: RequestPattern(path: "/mine"), response: StubResponse(status: 200))], session: "s1")
        set.add([Stub(name: "later", scenario: StubScenario(name: "checkout", state: "retried"),
                      request: RequestPattern(path: "/later"), response: StubResponse(status: 200))])
        let other = set.nearMisses(for: CassetteRequest(method: "GET", url: "/mine"), session: "s2")
        #expect(other.first?.failure.field == "session")
        #expect(other.first?.failure.difference == #"the stub is for session "s1"; this request is in session "s2""#)
        let none = set.nearMisses(for: CassetteRequest(method: "GET", url: "/mine"), session: "")
        #expect(none.first?.failure.difference == #"the stub is for session "s1"; this request is in no session"#)
        let early = set.nearMisses(for: CassetteRequest(method: "GET", url: "/later"), session: "")
        #expect(early.first?.failure.field == "scenario")
        #expect(early.first?.failure.difference == #"scenario "checkout" is in state "Started"; the stub needs "retried""#)
    }
}
