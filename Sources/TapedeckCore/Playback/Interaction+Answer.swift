import Foundation

extension Interaction {
    /// The recorded answer as a client that sent `acceptEncoding` gets it (nil when it sent none,
    /// which is also what an in-process caller sees: URLSession hands bodies over decoded): the
    /// headers to send and the body, a streamed answer's chunks joined.
    ///
    /// The coding is ``ResponseEncoding``'s choice; hop-by-hop headers are dropped; `Content-Length`
    /// is the length sent, except in the answer to a HEAD request and a 304, which keep the one the
    /// recording gave (it describes a body never sent). One rule for every door that answers from a
    /// recording whole: the servers' negotiated variants and the in-process connectors.
    package func answer(acceptEncoding: String?) throws(ContentCodingError) -> (headers: HeaderList, body: Data) {
        try answer(ResponseEncoding.negotiate(for: response, acceptEncoding: acceptEncoding))
    }

    /// The recorded answer in `encoding`, already negotiated (``answer(acceptEncoding:)``).
    package func answer(_ encoding: ResponseEncoding) throws(ContentCodingError) -> (headers: HeaderList, body: Data) {
        var whole = response
        if chunks != nil { whole.body = Body(responseBodyData) }
        var (headers, body) = try encoding.apply(to: whole)
        if request.method == "HEAD" || response.status == 304 {
            headers.remove("Content-Length")
            if let described = response.headers["Content-Length"] { headers.set(name: "Content-Length", value: described) }
        }
        headers.removeHopByHop()
        return (headers, body)
    }

    /// ``answer(acceptEncoding:)`` for a client that sent no `Accept-Encoding`, as in-process callers
    /// see answers. Such a client gets the body as stored (decoded, or kept encoded): nothing is
    /// encoded, so nothing can fail.
    package var plainAnswer: (headers: HeaderList, body: Data) {
        do {
            return try answer(acceptEncoding: nil)
        } catch {
            return (response.headers, responseBodyData)  // not reached: identity and as-recorded encode nothing
        }
    }
}
