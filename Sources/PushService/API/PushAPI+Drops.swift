import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushHTTP
import PushHTTP1
import PushStore

extension PushAPI {
    /// `POST /v1/drops`: one phone's report; 201 pending, 200 matched, 409 busy, 422 condition not met.
    func reportDrop(_ request: APIRequest) async throws -> HTTPResponse {
        let report = try DropReportBody(try request.jsonBody())
        switch try await match.report(
            userID: report.userID, peerID: report.peerID, distance: report.distance,
            direction: report.direction)
        {
        case .pending(let drop):
            return .json(status: 201, ["state": "pending", "drop": RecordJSON.drop(drop)])
        case .matched(let drop, let requests):
            return .json(
                status: 200,
                [
                    "state": "matched", "drop": RecordJSON.drop(drop),
                    "mate_requests": .array(requests.map(RecordJSON.mateRequest)),
                ])
        case .busy:
            throw APIError(status: 409, code: "busy", message: "a user of this pair is engaged in another drop")
        case .conditionNotMet(let why):
            throw APIError(status: 422, code: "condition_not_met", message: why.description)
        }
    }

    /// `GET /v1/users/{id}/drop`: the user's pending or recently matched drop.
    func dropStatus(_ request: APIRequest) async throws -> HTTPResponse {
        let userID = request.parameter("id")
        guard let drop = try await match.status(userID: userID) else {
            throw APIError.notFound("no_drop", "user \(userID) has no pending or recent drop")
        }
        return .json(status: 200, ["state": .string(drop.state.rawValue), "drop": RecordJSON.drop(drop)])
    }

    /// `DELETE /v1/users/{id}/drop`: 200 cancelled, 409 already matched, 404 nothing pending.
    func cancelDrop(_ request: APIRequest) async throws -> HTTPResponse {
        let userID = request.parameter("id")
        switch try await match.cancel(userID: userID) {
        case .cancelled(let drop):
            return .json(status: 200, ["state": "cancelled", "drop": RecordJSON.drop(drop)])
        case .alreadyMatched:
            throw APIError(status: 409, code: "already_matched", message: "the drop matched already; its mate requests stand")
        case .nothingPending:
            throw APIError.notFound("nothing_pending", "user \(userID) has no pending drop")
        }
    }

    /// `GET /v1/users/{id}/mate-requests?role=recipient|sender|any`.
    func listMateRequests(_ request: APIRequest) async throws -> HTTPResponse {
        let role: MateRequestRole
        switch request.http.queryValue("role") ?? "any" {
        case "any": role = .any
        case "recipient": role = .recipient
        case "sender": role = .sender
        default: throw APIError.badRequest("invalid_query", "role must be recipient, sender or any")
        }
        let requests = try await match.mateRequests(forUser: request.parameter("id"), role: role)
        return .json(status: 200, ["mate_requests": .array(requests.map(RecordJSON.mateRequest))])
    }

    /// `POST /v1/mate-requests/{id}/accept|decline` by the recipient (`{"user_id": ...}`); 409 on a second answer.
    func answerMateRequest(_ request: APIRequest, accept: Bool) async throws -> HTTPResponse {
        let body = try request.jsonBody()
        try body.checkKnown(["user_id"])
        let userID = try body.userID("user_id")
        let answered = try await match.answer(mateRequestID: request.parameter("id"), by: userID, accept: accept)
        if answered.state == .accepted, configuration.walkLiveActivities { await startWalkActivity(answered) }
        return .json(status: 200, RecordJSON.mateRequest(answered))
    }
}
