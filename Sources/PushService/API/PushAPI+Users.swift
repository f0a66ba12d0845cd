import APNSCore
import Foundation
import ProfileDrop
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `PUT /v1/users/{id}`: creates or replaces the user's profile card (201 new, 200 replaced).
    func putUser(_ request: APIRequest) async throws -> HTTPResponse {
        let id = request.parameter("id")
        let card = try ProfileCard(try request.jsonBody())
        try card.validate()
        let existed = try await repositories.users.user(id: id) != nil
        let user = try await repositories.users.put(id: id, card: card, now: Date())
        return .json(status: existed ? 200 : 201, try RecordJSON.user(user))
    }

    /// `GET /v1/users/{id}`.
    func getUser(_ request: APIRequest) async throws -> HTTPResponse {
        let id = request.parameter("id")
        guard let user = try await repositories.users.user(id: id) else { throw APIError.notFound("unknown_user", "no user \(id)") }
        return .json(status: 200, try RecordJSON.user(user))
    }
}
