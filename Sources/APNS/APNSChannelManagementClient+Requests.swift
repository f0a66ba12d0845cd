import APNSCore
import PushHTTP
import PushHTTP2
import PushIO

extension APNSChannelManagementClient {
    /// Checks a management request locally, as APNs would without its channel registry (when
    /// ``APNSClientConfiguration/validatesLocally`` is on). Apple's reasons, in this order:
    /// - bundle ID empty or holding `/`: 404 `BadPath`
    /// - bundle ID with a push-type suffix: 400 `TopicDisallowed`
    /// - `apns-request-id` not a canonical UUID: 400 `BadMessageId` (Apple names no reason of its own
    ///   for a bad `apns-request-id`; `BadMessageId`, "the `apns-id` value is invalid", is the nearest)
    /// - a channel id that is empty: 400 `MissingChannelId`; not base64: 400 `BadChannelId`
    static func validate(bundleID: String, channelID: APNSChannelID?, requestID: String?) -> APNSRejection? {
        let reason: APNSRejectionReason? =
            if let reason = APNSBroadcast.bundleIDRejection(bundleID) {
                reason
            } else if let requestID, !APNSID.isValid(requestID) {
                .badMessageId
            } else if let channelID, channelID.rawValue.isEmpty {
                .missingChannelId
            } else if let channelID, !channelID.isWellFormed {
                .badChannelId
            } else {
                nil
            }
        return reason.map { APNSRejection($0, apnsID: requestID) }
    }

    /// Validates, sends and classifies one management request: a 2xx response comes back, anything
    /// else is thrown as Apple's rejection.
    func perform(
        method: String, bundleID: String, suffix: String, channelID: APNSChannelID?, requestID: String?,
        body: [UInt8] = []
    ) async throws(APNSChannelManagementError) -> HTTPResponse {
        if configuration.validatesLocally, let rejection = Self.validate(bundleID: bundleID, channelID: channelID, requestID: requestID) {
            throw .rejected(rejection)
        }
        var headers: [(name: String, value: String)] = []
        if let channelID { headers.append((APNSHeader.channelID, channelID.rawValue)) }
        if let requestID { headers.append((APNSHeader.requestID, APNSID.isValid(requestID) ? requestID.lowercased() : requestID)) }
        if !body.isEmpty { headers.append(("content-type", "application/json")) }
        return try await perform(
            HTTP2Request(
                method: method, authority: configuration.environment.host,
                path: APNSHeader.channelManagementPathPrefix + bundleID + suffix, headers: headers, body: body))
    }

    /// Sends `request` as it is (plus `authorization` for token auth): a 2xx response comes back, any
    /// other status is thrown as Apple's rejection, no answer as a transport error.
    func perform(_ request: HTTP2Request) async throws(APNSChannelManagementError) -> HTTPResponse {
        let response: HTTPResponse
        let started = ContinuousClock.now
        do {
            response = try await transport.perform(request)
        } catch let error as APNSTransportError {
            configuration.metrics.record(.failed(error.kind))
            throw .transport(error)
        } catch {
            throw .transport(APNSTransportError(.notSent, "\(error)"))
        }
        let latency = (ContinuousClock.now - started) / .seconds(1)
        guard (200..<300).contains(response.status) else {
            let rejection = APNSRejection.parse(status: response.status, body: response.body, apnsID: response.header(APNSHeader.requestID))
            configuration.metrics.record(.rejected(reason: rejection.reason, latency: latency))
            throw .rejected(rejection)
        }
        configuration.metrics.record(.accepted(latency: latency))
        return response
    }
}
