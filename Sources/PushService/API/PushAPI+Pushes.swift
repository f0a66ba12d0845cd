import APNSCore
import Foundation
import PushHTTP
import PushHTTP1
import PushStore
import PushSync
import PushTLS

extension PushAPI {
    /// `POST /v1/pushes`: validates, writes one outbox row per device (durably) and answers 202 with the ids;
    /// with `?wait=true`, 200 with each notification's outcome once all are final or the wait timed out.
    func createPush(_ request: APIRequest) async throws -> HTTPResponse {
        let wait = try request.queryFlag("wait")
        // With an Idempotency-Key the push's id is derived from the key: a retry after an answer that did not
        // say whether the rows were stored (a 503 after a commit whose outcome is unknown, such as one whose
        // wait for the synchronous standby was cancelled) finds them and is answered with the original push.
        // (Rows of the key's push older than the key's 24 hours belong to an earlier request: a new id then.)
        var newPushID = OutboxID.make()
        if let idempotentID = Self.idempotentPushID(request) {
            let earlier = try await outbox.items(pushID: idempotentID)
            if let first = earlier.first {
                if first.createdAt > Date().addingTimeInterval(-(Self.idempotencyTTL / .seconds(1))) {
                    logger.info("push.found_stored", [("push_id", idempotentID), ("notifications", "\(earlier.count)")])
                    if wait { return .jsonBytes(status: 200, PushJSON.push(pushID: idempotentID, rows: earlier)) }
                    return .jsonBytes(status: 202, PushJSON.accepted(pushID: idempotentID, items: earlier))
                }
            } else {
                newPushID = idempotentID
            }
        }
        let chosenPushID = newPushID
        // Parsing a body and writing its rows holds a few MB per 5,000 tokens; more of these at once than
        // there are cores only adds memory, so they take turns (waiting with ?wait=true is outside).
        let (pushID, items, waitID) = try await intake.withPermit { () async throws -> (String, [OutboxItem], Int?) in
            let push = try PushRequest(try request.jsonBody())
            let targets = try await resolveTargets(push)
            if push.pushType == .liveactivity { try requireTokenAuth(topics: targets.map(\.topic)) }
            try admitNotifications(targets.count, key: request.key)
            let admitted = try await admitToOutbox(targets.map(\.topic), payloadBytes: push.payload.count)
            var stored = false
            defer { for (app, rows) in admitted { admission.finished(app: app, rows: rows, stored: stored) } }
            let pushID = chosenPushID
            let now = Date()
            var random = BulkRandom()
            let expiration = push.expiration.map { APNSExpiration.at(epochSeconds: Int64($0)) } ?? .none
            var items: [OutboxItem] = []
            items.reserveCapacity(targets.count)
            for target in targets {
                items.append(
                    OutboxItem(
                        id: OutboxID.make(at: now, using: &random), pushID: pushID, token: target.token, topic: target.topic,
                        pushType: push.pushType, payload: push.payload, environment: target.environment,
                        priority: push.priority, expiration: expiration, collapseID: push.collapseID,
                        apnsID: APNSID.random(using: &random), now: now))
            }
            let waitID = wait ? await waiters.register(rowIDs: items.map(\.id)) : nil
            do {
                // A large push is a big enough transaction by itself: written directly it skips the group
                // commit's merged copy of every row; small ones share transactions through the writer.
                if items.count >= Self.directEnqueueRows {
                    try await outbox.enqueue(items)
                } else {
                    try await writer.enqueue(items)
                }
            } catch {
                if let waitID { await waiters.finish(waitID) }
                throw error
            }
            stored = true
            logger.info(
                "push.enqueued",
                [
                    ("push_id", pushID), ("notifications", "\(items.count)"),
                    ("push_type", push.pushType.rawValue),
                ])
            if case .user(let userID) = push.target { recentPushes.record(pushID: pushID, userID: userID) }
            return (pushID, items, waitID)
        }
        metrics.recordEnqueued(items.count)
        if let waitID {
            await waiters.wait(waitID, timeout: configuration.waitTimeout)
            let rows = try await outbox.items(pushID: pushID)
            return .jsonBytes(status: 200, PushJSON.push(pushID: pushID, rows: rows))
        }
        return .jsonBytes(status: 202, PushJSON.accepted(pushID: pushID, items: items))
    }

    /// The push id a request with an `Idempotency-Key` gets: a UUID (version 8) from a SHA-256 of the API
    /// key's name, the Idempotency-Key and the body, so the same request retried gets the same id. Nil
    /// without a key.
    static func idempotentPushID(_ request: APIRequest) -> String? {
        guard let key = request.http.header("Idempotency-Key") else { return nil }
        let name = request.key?.name ?? "-"
        let digest = SHA256Digest.hash(Array("push \(name)\n\(key)\n".utf8) + request.http.body)
        let high = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = digest.dropFirst(8).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return APNSID.format(
            high: (high & ~0xf000) | 0x8000,  // version 8
            low: (low & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000)
    }

    /// Takes room in the outbox for rows of `topics` (one per notification) of `payloadBytes` each, per app;
    /// throws 503 `outbox_full` (nothing taken) when the outbox's bound would be passed.
    private func admitToOutbox(_ topics: [String], payloadBytes: Int) async throws -> [(app: Int?, rows: Int)] {
        guard admission.isBounded, !topics.isEmpty else { return [] }
        let senders = self.senders
        admission.refresh(outbox: outbox, appIndex: { senders.index(forTopic: $0) })
        // Counted per run of rows with one topic (a push's rows share it): one lookup and one count a run.
        var rowsByApp: [Int?: Int] = [:]
        var lastTopic: String?
        var lastApp: Int?
        var run = 0
        for topic in topics {
            if topic != lastTopic {
                if run > 0 { rowsByApp[lastApp, default: 0] += run }
                lastTopic = topic
                lastApp = senders.index(forTopic: topic)
                run = 0
            }
            run += 1
        }
        if run > 0 { rowsByApp[lastApp, default: 0] += run }
        var taken: [(app: Int?, rows: Int)] = []
        for (app, rows) in rowsByApp {
            if let refusal = admission.admit(app: app, rows: rows, payloadBytes: payloadBytes) {
                for (app, rows) in taken { admission.finished(app: app, rows: rows, stored: false) }
                throw outboxFull(refusal)
            }
            taken.append((app, rows))
        }
        return taken
    }

    private func outboxFull(_ refusal: OutboxAdmission.Refusal) -> APIError {
        let (what, app, pending, limit): (String, String?, Int, Int)
        switch refusal {
        case .rows(let name, let count, let bound): (what, app, pending, limit) = ("rows", name, count, bound)
        case .bytes(let name, let count, let bound): (what, app, pending, limit) = ("bytes", name, count, bound)
        }
        metrics.recordOutboxRefusal(app: app ?? "", limit: what)
        let scope = app.map { "app \($0)'s notifications" } ?? "the outbox"
        let unit = what == "rows" ? "notifications" : "payload bytes"
        return APIError(
            status: 503, code: "outbox_full",
            message: "\(scope) hold \(pending) pending \(unit), and this push would pass the bound of \(limit); retry later",
            retryAfterSeconds: Int((Self.outboxFullRetryAfter / .seconds(1)).rounded(.up)))
    }

    /// `Retry-After` of a push refused by the outbox bound.
    static let outboxFullRetryAfter: Duration = .seconds(5)

    /// Pushes with at least this many rows are enqueued in their own transaction.
    static let directEnqueueRows = 1_000

    /// `GET /v1/pushes/{id}`: every notification of the push with its state, reason and apns-id.
    func getPush(_ request: APIRequest) async throws -> HTTPResponse {
        let pushID = request.parameter("id")
        let rows = try await outbox.items(pushID: pushID)
        guard !rows.isEmpty else { throw APIError.notFound("unknown_push", "no push \(pushID.prefix(128))") }
        return .jsonBytes(status: 200, PushJSON.push(pushID: pushID, rows: rows))
    }

    private struct Target {
        var token: DeviceToken
        var topic: String
        var environment: APNSEnvironment
    }

    private func resolveTargets(_ push: PushRequest) async throws -> [Target] {
        switch push.target {
        case .tokens(let tokens):
            guard let topic = push.topic(default: configuration.defaultTopic) else {
                throw APIError.invalidField("topic", "is required (no default topic is configured)")
            }
            try checkServed(topic)
            try push.validate(topic: topic)
            if let environment = push.environment {
                return tokens.map { Target(token: $0, topic: topic, environment: environment) }
            }
            // One lookup for the whole list: a registered token goes to its registration's environment.
            let registered = try await repositories.devices.devices(tokens: tokens, topic: topic)
            return tokens.map { Target(token: $0, topic: topic, environment: registered[$0]?.environment ?? .production) }
        case .user(let userID):
            if let topic = push.topic { try checkServed(topic) }
            let devices = try await repositories.devices.devices(forUser: userID).filter { device in
                if let environment = push.environment, device.environment != environment { return false }
                // A device of an app no longer configured cannot be pushed.
                if senders.index(forTopic: device.topic) == nil { return false }
                if let topic = push.topic { return device.topic == topic }
                return push.pushType.suits(topic: device.topic)
            }
            guard !devices.isEmpty else {
                throw APIError(status: 422, code: "no_devices", message: "user \(userID) has no active device for this push")
            }
            for topic in Set(devices.map(\.topic)) { try push.validate(topic: topic) }
            return devices.map { Target(token: $0.token, topic: $0.topic, environment: $0.environment) }
        }
    }
}
