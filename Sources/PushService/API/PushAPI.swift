import APNSCore
import Foundation
import ProfileDrop
public import PushHTTP
public import PushHTTP1
import PushStore
import PushSync

/// The REST API: routes, authentication, error mapping and one log line per request.
public struct PushAPI: Sendable {
    /// The store's repositories; `outbox` wakes the worker on every enqueue.
    let repositories: PushRepositories
    let writer: OutboxWriter
    let match: MatchService
    let waiters: PushWaiters
    let metrics: ServiceMetrics
    let logger: ServiceLogger
    let authenticator: ReloadableAuthenticator
    let configuration: PushServiceConfiguration
    let senders: PushSenders
    /// The REST listener's TLS, reloaded by `POST /v1/admin/reload` (nil: plain HTTP).
    let listenerTLS: HTTPServerTLS?
    /// Reloads TLS, API keys and APNs credentials (`POST /v1/admin/reload`, SIGHUP).
    let reloader: ServiceReloader
    /// The bound on what the outbox holds (`POST /v1/pushes` past it: 503 `outbox_full`).
    let admission: OutboxAdmission
    /// Turns for the memory-heavy part of `POST /v1/pushes` (parse, rows, enqueue): two at a time.
    let intake = AsyncSemaphore(permits: 2)
    /// Per-key request and notification buckets.
    let limiter = APIRateLimiter()
    /// Failed authentications are logged at most ten times a minute.
    let authFailureLog = LogThrottle(limit: 10, window: .seconds(60))
    /// Same-key requests take turns (see `runIdempotent`).
    let idempotencyLocks = KeyedLock()
    /// What `/metrics` reads from the store every time, read at most once a second.
    let storeGauges = StoreGauges<StoreSnapshot>()
    /// The outbox's and the webhook queue's final rows by state for `/metrics`, read at most once a minute:
    /// counting them visits every row kept.
    let finalCountGauges = StoreGauges<FinalCounts>(maxAge: .seconds(60))

    /// Pushes to users this instance accepted lately (the console's user page).
    let recentPushes = ConsoleRecentPushes()

    /// The outbox (waking the worker).
    var outbox: any OutboxRepository { repositories.outbox }

    /// The router with every operation (the OpenAPI document lists the same set).
    public var router: APIRouter {
        let user: [String: PathParameter] = ["id": .userID]
        let mateRequest: [String: PathParameter] = ["id": .mateRequestID]
        let webhook: [String: PathParameter] = ["id": .userID]
        let channel: [String: PathParameter] = ["id": .channelID]
        let activity: [String: PathParameter] = ["id": .activityID]
        return APIRouter(routes: [
            APIRoute("GET", "/healthz", scope: configuration.protectHealthz ? .read : nil) { try await self.health($0) },
            APIRoute("GET", "/metrics", scope: configuration.protectMetrics ? .read : nil) { try await self.metricsText($0) },
            APIRoute("PUT", "/v1/users/{id}", scope: .manage, parameters: user) { try await self.putUser($0) },
            APIRoute("GET", "/v1/users/{id}", scope: .read, parameters: user) { try await self.getUser($0) },
            APIRoute("POST", "/v1/devices", scope: .manage, idempotent: true) { try await self.registerDevice($0) },
            APIRoute("DELETE", "/v1/devices/{token}", scope: .manage, parameters: ["token": .deviceToken]) { try await self.removeDevice($0) },
            APIRoute("GET", "/v1/users/{id}/devices", scope: .read, parameters: user) { try await self.listDevices($0) },
            APIRoute("POST", "/v1/pushes", scope: .send, idempotent: true) { try await self.createPush($0) },
            APIRoute("GET", "/v1/pushes/{id}", scope: .read, parameters: ["id": .pushID]) { try await self.getPush($0) },
            APIRoute("POST", "/v1/drops", scope: .send, idempotent: true) { try await self.reportDrop($0) },
            APIRoute("GET", "/v1/users/{id}/drop", scope: .read, parameters: user) { try await self.dropStatus($0) },
            APIRoute("DELETE", "/v1/users/{id}/drop", scope: .send, parameters: user) { try await self.cancelDrop($0) },
            APIRoute("GET", "/v1/users/{id}/mate-requests", scope: .read, parameters: user) { try await self.listMateRequests($0) },
            APIRoute("POST", "/v1/mate-requests/{id}/accept", scope: .send, parameters: mateRequest) {
                try await self.answerMateRequest($0, accept: true)
            },
            APIRoute("POST", "/v1/mate-requests/{id}/decline", scope: .send, parameters: mateRequest) {
                try await self.answerMateRequest($0, accept: false)
            },
            APIRoute("GET", "/v1/apps", scope: .read) { try await self.listApps($0) },
            APIRoute("POST", "/v1/channels", scope: .manage, idempotent: true) { try await self.createChannel($0) },
            APIRoute("GET", "/v1/channels", scope: .read) { try await self.listChannels($0) },
            APIRoute("GET", "/v1/channels/apple", scope: .read) { try await self.appleChannels($0) },
            APIRoute("POST", "/v1/channels/reconcile", scope: .manage) { try await self.reconcileChannels($0) },
            APIRoute("DELETE", "/v1/channels/{id}", scope: .manage, parameters: channel) { try await self.deleteChannel($0) },
            APIRoute("POST", "/v1/channels/{id}/broadcasts", scope: .send, parameters: channel, idempotent: true) {
                try await self.createBroadcast($0)
            },
            APIRoute("POST", "/v1/live-activities", scope: .send, idempotent: true) { try await self.startLiveActivity($0) },
            APIRoute("POST", "/v1/live-activities/{id}/update", scope: .send, parameters: activity, idempotent: true) {
                try await self.updateLiveActivity($0)
            },
            APIRoute("POST", "/v1/live-activities/{id}/end", scope: .send, parameters: activity, idempotent: true) {
                try await self.endLiveActivity($0)
            },
            APIRoute("POST", "/v1/walks/{id}/end", scope: .send, parameters: mateRequest) { try await self.endWalk($0) },
            APIRoute("POST", "/v1/admin/reload", scope: .admin) { try await self.reload($0) },
            APIRoute("POST", "/v1/webhooks", scope: .admin) { try await self.createWebhook($0) },
            APIRoute("GET", "/v1/webhooks", scope: .admin) { try await self.listWebhooks($0) },
            APIRoute("DELETE", "/v1/webhooks/{id}", scope: .admin, parameters: webhook) { try await self.deleteWebhook($0) },
            APIRoute("GET", "/v1/webhooks/{id}/deliveries", scope: .admin, parameters: webhook) {
                try await self.listWebhookDeliveries($0)
            },
        ])
    }

    /// Answers one request: access control (`admit`), the handler, errors as JSON, metrics and a log line.
    public func handle(_ request: HTTPServerRequest, router: APIRouter) async -> HTTPResponse {
        let started = ContinuousClock.now
        let routeName: String
        let response: HTTPResponse
        switch admit(request, router: router) {
        case .answer(let answer, let route):
            routeName = route
            response = answer
        case .run(let route, let parameters, let values, let key):
            routeName = route.operation
            let routed = APIRequest(http: request, parameters: parameters, values: values, key: key)
            response = route.idempotent ? await runIdempotent(route, routed) : await run(route, routed)
        }
        metrics.recordRequest(route: routeName, status: response.status)
        let elapsed = ContinuousClock.now - started
        logger.info(
            "http.request",
            [
                ("method", request.method), ("route", routeName), ("status", "\(response.status)"),
                ("duration_ms", ServiceLogger.milliseconds(elapsed)),
            ])
        return response
    }

    func run(_ route: APIRoute, _ request: APIRequest) async -> HTTPResponse {
        do {
            return try await route.handler(request)
        } catch {
            if let known = Self.apiError(known: error) { return known.response }
            logger.error("http.internal_error", [("route", route.operation), ("error", "\(error)")])
            return APIError(status: 500, code: "internal", message: "internal error").response
        }
    }

    /// The answer to an error a handler threw, as the REST API and the console give it: API errors as they
    /// are, store and match errors mapped (a full disk 503 `storage_full`, an unreachable database 503
    /// `database_unavailable`, both with `Retry-After`); nil for any other error (a 500, logged).
    static func apiError(known error: any Error) -> APIError? {
        switch error {
        case let error as APIError: error
        case let error as PushStoreError: apiError(error)
        case let error as MatchError: apiError(error)
        default: nil
        }
    }

    /// How long a client is asked to wait (`Retry-After`) after a write refused for space: as long as
    /// `/healthz` then reports the store unable to write (`StoreWriteHealth.hold`).
    static let storageFullRetryAfter: Duration = .seconds(5)

    static func apiError(_ error: PushStoreError) -> APIError {
        switch error {
        case .invalidUserID, .invalidToken, .invalidField:
            return APIError(status: 400, code: "invalid_field", message: error.description)
        case .profileTooLarge:
            return APIError(status: 413, code: "profile_too_large", message: error.description)
        case .duplicateID: return APIError(status: 409, code: "duplicate", message: error.description)
        case .notFound: return APIError(status: 404, code: "not_found", message: error.description)
        case .notRecipient: return APIError(status: 403, code: "not_recipient", message: error.description)
        case .alreadyAnswered: return APIError(status: 409, code: "already_answered", message: error.description)
        case .invalidTransition: return APIError(status: 409, code: "invalid_transition", message: error.description)
        case .unavailable:
            // Also a commit whose outcome is unknown (a failover, a cancelled wait for the synchronous standby):
            // the same request with its Idempotency-Key is safe to send again.
            return APIError(status: 503, code: "database_unavailable", message: error.description, retryAfterSeconds: 1)
        case .storageFull:
            return APIError(
                status: 503, code: "storage_full", message: error.description,
                retryAfterSeconds: Int((storageFullRetryAfter / .seconds(1)).rounded(.up)))
        }
    }

    static func apiError(_ error: MatchError) -> APIError {
        switch error {
        // Not a shape the OpenAPI schema can state (two fields equal), so not a 400.
        case .selfReport: return APIError(status: 422, code: "self_report", message: error.description)
        case .invalidMeasurement: return APIError(status: 400, code: "invalid_measurement", message: error.description)
        case .unknownUser: return APIError(status: 404, code: "unknown_user", message: error.description)
        case .mateRequestNotFound: return APIError(status: 404, code: "not_found", message: error.description)
        case .notRecipient: return APIError(status: 403, code: "not_recipient", message: error.description)
        case .alreadyAnswered: return APIError(status: 409, code: "already_answered", message: error.description)
        }
    }
}
