import Foundation

extension APIClient {
    /// The users of a team; a team the API does not know has none (404 is an empty list).
    public func users(team: String) async throws -> [User] {
        try await send(RequestSpec(.get, "/users", query: [URLQueryItem(name: "team", value: team)]),
                       expecting: .list(of: User.self))
    }

    /// Creates a user with a form post.
    public func createUser(name: String, email: String) async throws -> User {
        try await send(RequestSpec(.post, "/users", body: .form([("name", name), ("email", email)])),
                       expecting: .json(User.self, accepting: [201]))
    }

    /// Uploads an avatar image with a multipart form.
    public func uploadAvatar(fileName: String, png: Data, description: String) async throws -> UploadReceipt {
        var form = MultipartForm()
        form.addField("description", description)
        form.addFile("avatar", fileName: fileName, contentType: "image/png", data: png)
        return try await send(RequestSpec(.post, "/avatars", body: .multipart(form)), expecting: .json(UploadReceipt.self))
    }

    /// Downloads a report to a file.
    public func downloadReport(year: Int, to file: URL) async throws -> URL {
        try await send(RequestSpec(.get, "/reports/\(year).csv", headers: [.accept: "text/csv"]), expecting: .file(to: file))
    }

    /// The signed-in user.
    public func me() async throws -> User {
        try await send(RequestSpec(.get, "/me"), expecting: .json(User.self))
    }
}
