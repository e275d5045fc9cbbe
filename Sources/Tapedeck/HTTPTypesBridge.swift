import Foundation
import HTTPTypes
import TapedeckCore

extension CassetteRequest {
    /// The core's form of a swift-http-types request: absolute when it names scheme and authority.
    init(_ request: HTTPRequest, body: Data?) {
        let path = request.path ?? "/"
        let url: String
        if let scheme = request.scheme, let authority = request.authority {
            url = "\(scheme)://\(authority)\(path)"
        } else {
            url = path
        }
        var headers = HeaderList()
        for field in request.headerFields { headers.append(name: field.name.rawName, value: field.value) }
        self.init(method: request.method.rawValue, url: url, headers: headers.removingHopByHop, body: Body(body ?? Data()))
    }
}

extension HTTPRequest {
    /// A swift-http-types request for a cassette request with an absolute URL; nil for origin-form.
    init?(_ request: CassetteRequest) {
        let target = request.target
        guard let scheme = target.scheme, let authority = target.authority, let method = HTTPRequest.Method(request.method) else {
            return nil
        }
        self.init(method: method, scheme: scheme, authority: authority,
                  path: target.path + (target.query.map { "?\($0)" } ?? ""), headerFields: HTTPFields(request.headers))
    }
}

extension Playback {
    /// The response as a URLSession caller sees it, with `Tapedeck-Warning: expired` when the
    /// interaction is past its expiry age (served under `warn`).
    func decodedResponse() -> (HTTPResponse, Data) {
        var (response, data) = interaction.decodedResponse()
        if isExpired { response.headerFields[.tapedeckWarning] = "expired" }
        return (response, data)
    }
}

extension Interaction {
    /// The response as a URLSession caller sees it: the body decoded, without `Content-Encoding`
    /// (the core's ``Interaction/plainAnswer``, the rule the servers follow too).
    func decodedResponse() -> (HTTPResponse, Data) {
        let (headers, data) = plainAnswer
        return (HTTPResponse(status: .init(code: response.status), headerFields: HTTPFields(headers)), data)
    }
}
