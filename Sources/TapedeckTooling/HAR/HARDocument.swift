import Foundation
import TapedeckCore

/// A HAR 1.2 file (W3C Web Performance "HTTP Archive"), as browsers, mitmproxy and Polly.js write it.
///
/// Only what a cassette needs is modelled; other members are ignored on read. Members that
/// start with `_` are HAR's custom fields, used to carry what HAR has no place for.
public struct HARDocument: Sendable, Hashable, Codable {
    /// The archive.
    public var log: HARLog

    /// Creates a document.
    public init(log: HARLog) {
        self.log = log
    }
}

/// The `log` object: version, creator and entries.
public struct HARLog: Sendable, Hashable, Codable {
    /// The HAR version, `1.2`.
    public var version: String
    /// The tool that wrote the file.
    public var creator: HARCreator
    /// The exchanges, in order.
    public var entries: [HAREntry]

    /// Creates a log.
    public init(version: String = "1.2", creator: HARCreator, entries: [HAREntry]) {
        self.version = version
        self.creator = creator
        self.entries = entries
    }
}

/// The tool that wrote a HAR file.
public struct HARCreator: Sendable, Hashable, Codable {
    /// Its name.
    public var name: String
    /// Its version.
    public var version: String

    /// Creates a creator.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// One exchange.
public struct HAREntry: Sendable, Hashable, Codable {
    /// When the request started, ISO 8601.
    public var startedDateTime: String
    /// The total time in milliseconds.
    public var time: Double
    /// The request.
    public var request: HARRequest
    /// The response.
    public var response: HARResponse
    /// Cache information; always an empty object here.
    public var cache: HAREmpty?
    /// The phases of the exchange in milliseconds; -1 when not known.
    public var timings: HARTimings?
    /// Tapedeck's custom field: the cassette's `recordedAt`, kept exactly.
    public var recordedAt: String?
    /// Tapedeck's custom field: the hand-set delay.
    public var delayMs: Double?
    /// Tapedeck's custom field: a streamed response's chunks and their offsets.
    public var chunks: [StreamChunk]?
    /// Tapedeck's custom field: the cassette had no timing (HAR requires numbers).
    public var noTiming: Bool?

    private enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings
        case recordedAt = "_recordedAt", delayMs = "_delayMs", chunks = "_chunks", noTiming = "_noTiming"
    }

    /// Creates an entry.
    public init(startedDateTime: String, time: Double, request: HARRequest, response: HARResponse,
                timings: HARTimings?, recordedAt: String? = nil, delayMs: Double? = nil,
                chunks: [StreamChunk]? = nil, noTiming: Bool? = nil) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = HAREmpty()
        self.timings = timings
        self.recordedAt = recordedAt
        self.delayMs = delayMs
        self.chunks = chunks
        self.noTiming = noTiming
    }
}

/// An empty object, for HAR members this tool does not fill (`cache`).
public struct HAREmpty: Sendable, Hashable, Codable {
    /// Creates one.
    public init() {}
}

/// A name and value: a header, a query parameter or a cookie.
public struct HARNameValue: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a pair.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request.
public struct HARRequest: Sendable, Hashable, Codable {
    /// The method.
    public var method: String
    /// The absolute URL.
    public var url: String
    /// The protocol, such as `HTTP/1.1`.
    public var httpVersion: String?
    /// Cookies sent.
    public var cookies: [HARNameValue]?
    /// Headers in order.
    public var headers: [HARNameValue]
    /// Query parameters.
    public var queryString: [HARNameValue]?
    /// The body, if any.
    public var postData: HARPostData?
    /// Header bytes, -1 when unknown.
    public var headersSize: Int?
    /// Body bytes, -1 when unknown.
    public var bodySize: Int?
    /// Tapedeck's custom field: the cassette URL was origin-form (`/path`), sent straight to the replay server.
    public var originForm: Bool?

    private enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize
        case originForm = "_originForm"
    }

    /// Creates a request.
    public init(method: String, url: String, headers: [HARNameValue], queryString: [HARNameValue],
                cookies: [HARNameValue], postData: HARPostData?, bodySize: Int, originForm: Bool? = nil) {
        self.method = method
        self.url = url
        self.httpVersion = "HTTP/1.1"
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = -1
        self.bodySize = bodySize
        self.originForm = originForm
    }
}

/// A request body.
public struct HARPostData: Sendable, Hashable, Codable {
    /// The media type.
    public var mimeType: String?
    /// The body as text, or base64 when `encoding` is `base64` (an extension several tools use).
    public var text: String?
    /// Form parameters, when a tool gave them instead of the text.
    public var params: [HARParam]?
    /// `base64` when `text` is base64.
    public var encoding: String?

    /// Creates a body.
    public init(mimeType: String, text: String, params: [HARParam]? = nil, encoding: String? = nil) {
        self.mimeType = mimeType
        self.text = text
        self.params = params
        self.encoding = encoding
    }
}

/// A posted form parameter.
public struct HARParam: Sendable, Hashable, Codable {
    /// The name.
    public var name: String
    /// The value, absent for a file.
    public var value: String?
    /// The file name of an uploaded file.
    public var fileName: String?
    /// The file's media type.
    public var contentType: String?

    /// Creates a parameter.
    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// A response.
public struct HARResponse: Sendable, Hashable, Codable {
    /// The status code; 0 for a request the browser never completed.
    public var status: Int
    /// The reason phrase.
    public var statusText: String?
    /// The protocol.
    public var httpVersion: String?
    /// Cookies set.
    public var cookies: [HARNameValue]?
    /// Headers in order.
    public var headers: [HARNameValue]
    /// The body.
    public var content: HARContent
    /// The Location of a redirect.
    public var redirectURL: String?
    /// Header bytes, -1 when unknown.
    public var headersSize: Int?
    /// Body bytes as transferred, -1 when unknown.
    public var bodySize: Int?

    /// Creates a response.
    public init(status: Int, statusText: String, headers: [HARNameValue], cookies: [HARNameValue],
                content: HARContent, redirectURL: String, bodySize: Int) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = "HTTP/1.1"
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = -1
        self.bodySize = bodySize
    }
}

/// A response body: decoded text, or base64 when `encoding` is `base64`.
public struct HARContent: Sendable, Hashable, Codable {
    /// The decoded size in bytes.
    public var size: Int?
    /// Bytes saved by compression.
    public var compression: Int?
    /// The media type.
    public var mimeType: String?
    /// The body text (decoded from any content coding), or base64.
    public var text: String?
    /// `base64` when `text` is base64.
    public var encoding: String?
    /// Tapedeck's custom field: the body is still in its content coding (such as br), not decoded.
    public var stillEncoded: Bool?

    private enum CodingKeys: String, CodingKey {
        case size, compression, mimeType, text, encoding
        case stillEncoded = "_stillEncoded"
    }

    /// Creates content.
    public init(size: Int, compression: Int?, mimeType: String, text: String?, encoding: String?, stillEncoded: Bool?) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.stillEncoded = stillEncoded
    }
}

/// The phases of an exchange in milliseconds, -1 when a phase does not apply.
public struct HARTimings: Sendable, Hashable, Codable {
    /// Waiting for a connection.
    public var blocked: Double?
    /// Name resolution.
    public var dns: Double?
    /// Connecting, including TLS.
    public var connect: Double?
    /// Sending the request.
    public var send: Double?
    /// Waiting for the first response byte.
    public var wait: Double?
    /// Reading the response.
    public var receive: Double?
    /// The TLS part of `connect`.
    public var ssl: Double?

    /// Creates timings.
    public init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double, wait: Double,
                receive: Double, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }
}
