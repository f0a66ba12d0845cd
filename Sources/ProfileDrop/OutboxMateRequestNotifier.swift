import APNSCore
import Foundation
import PushStore

/// `MateRequestNotifier` that turns each notice into one outbox row per active recipient device.
///
/// Rows are alert pushes at priority 10 with `apns-collapse-id` = the drop id, so a device shows one
/// notification per drop; the row's `pushID` is the mate request id (or `<id>.answer` for the answer),
/// which is also what makes a repeated call a no-op. Invalidated devices are skipped: `devices(forUser:)`
/// returns active ones only.
public struct OutboxMateRequestNotifier: MateRequestNotifier {
    /// Where recipients' devices come from.
    public let devices: any DeviceRepository
    /// Where the rows go.
    public let outbox: any OutboxRepository
    /// If set, only devices registered for this topic are pushed; otherwise every device whose topic can take
    /// an alert (PushKit, complication and other suffixed topics are skipped).
    public let topic: String?

    /// Creates a notifier over `devices` and `outbox`.
    public init(devices: any DeviceRepository, outbox: any OutboxRepository, topic: String? = nil) {
        self.devices = devices
        self.outbox = outbox
        self.topic = topic
    }

    /// See `MateRequestNotifier.notifyMateRequests`: one enqueue for all notices, skipping requests already queued.
    public func notifyMateRequests(_ notices: [MateRequestNotice], at now: Date) async throws {
        var items: [OutboxItem] = []
        for notice in notices {
            let request = notice.request
            guard try await outbox.items(pushID: request.id).isEmpty else { continue }
            let payload = MateRequestPayload.request(notice).encoded()
            items += try await rows(
                to: request.recipientID, pushID: request.id, collapseID: request.dropID,
                payload: payload, now: now)
        }
        if !items.isEmpty { try await outbox.enqueue(items) }
    }

    /// See `MateRequestNotifier.notifyAnswer`.
    public func notifyAnswer(_ notice: MateAnswerNotice, at now: Date) async throws {
        let request = notice.request
        let pushID = "\(request.id).\(request.state.rawValue)"
        guard try await outbox.items(pushID: pushID).isEmpty else { return }
        let payload = MateRequestPayload.answer(notice).encoded()
        let items = try await rows(
            to: request.senderID, pushID: pushID, collapseID: request.dropID,
            payload: payload, now: now)
        if !items.isEmpty { try await outbox.enqueue(items) }
    }

    private func rows(
        to userID: String, pushID: String, collapseID: String, payload: [UInt8],
        now: Date
    ) async throws -> [OutboxItem] {
        try await devices.devices(forUser: userID).filter(accepts).map { device in
            OutboxItem(
                pushID: pushID, token: device.token, topic: device.topic, pushType: .alert,
                payload: payload, environment: device.environment,
                priority: .immediately, collapseID: collapseID, now: now)
        }
    }

    private func accepts(_ device: DeviceRecord) -> Bool {
        if let topic { return device.topic == topic }
        return PushType.alert.suits(topic: device.topic)
    }
}
