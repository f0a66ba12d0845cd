import APNSCore
public import Foundation
public import PushStore

/// Where mate-request pushes go: one alert row per active recipient device.
///
/// Rows are alert pushes at priority 10 with `apns-collapse-id` = the drop id, so a device shows one
/// notification per drop; the row's `pushID` is the mate request id (or `<id>.<answer>` for the answer).
/// Invalidated devices are skipped: `devices(forUser:)` returns active ones only.
public struct MateRequestPushes: Sendable {
    /// Where recipients' devices come from.
    public let devices: any DeviceRepository
    /// If set, only devices registered for this topic are pushed; otherwise every device whose topic can take
    /// an alert (PushKit, complication and other suffixed topics are skipped).
    public let topic: String?

    /// Pushes to the devices in `devices`, filtered by `topic` when given.
    public init(devices: any DeviceRepository, topic: String? = nil) {
        self.devices = devices
        self.topic = topic
    }

    /// Reads the devices of `userIDs` now, so that the rows can be made later without I/O (inside the
    /// store's transaction that creates the requests or the answer).
    public func recipients(_ userIDs: [String]) async throws -> MateRequestRecipients {
        recipients(among: try await devices.devices(forUsers: userIDs, includeInvalidated: false))
    }

    /// The recipients among `found`, active devices by user read beforehand (`UserRepository.users(ids:withDevicesIn:includeInvalidated:)`).
    public func recipients(among found: [String: [DeviceRecord]]) -> MateRequestRecipients {
        MateRequestRecipients(devices: found.mapValues { $0.filter(accepts) })
    }

    private func accepts(_ device: DeviceRecord) -> Bool {
        if let topic { return device.topic == topic }
        return PushType.alert.suits(topic: device.topic)
    }
}

/// The devices of some users, read beforehand: makes the outbox rows of their mate-request pushes.
public struct MateRequestRecipients: Sendable {
    /// Active, accepted devices by user id.
    public let devices: [String: [DeviceRecord]]

    /// The rows pushing each notice's request to its recipient (`MATE_REQUEST`).
    public func rows(for notices: [MateRequestNotice], at now: Date) -> [OutboxItem] {
        notices.flatMap { notice in
            rows(
                to: notice.request.recipientID, pushID: notice.request.id, collapseID: notice.request.dropID,
                payload: MateRequestPayload.encodedRequest(notice), now: now)
        }
    }

    /// The rows pushing an answer back to the request's sender (`MATE_REQUEST_ANSWER`).
    public func rows(for answer: MateAnswerNotice, at now: Date) -> [OutboxItem] {
        let request = answer.request
        return rows(
            to: request.senderID, pushID: "\(request.id).\(request.state.rawValue)", collapseID: request.dropID,
            payload: MateRequestPayload.answer(answer).encoded(), now: now)
    }

    private func rows(to userID: String, pushID: String, collapseID: String, payload: [UInt8], now: Date) -> [OutboxItem] {
        (devices[userID] ?? []).map { device in
            OutboxItem(
                pushID: pushID, token: device.token, topic: device.topic, pushType: .alert,
                payload: payload, environment: device.environment,
                priority: .immediately, collapseID: collapseID, now: now)
        }
    }
}
