import APNSCore
import Foundation
import PushHTTP2
import PushSync
import PushTLS

/// Serves one connection of a mock's channel management listener: Apple's management rules (see
/// `MockAPNSChannelRules`), the programmable handler, and the knobs that fit a management API (fault
/// rates, GOAWAY after N requests, abrupt close after N requests). Confined to the listener loop's thread.
final class MockAPNSChannelHandler: HTTP2ServerHandler {
    private let core: MockAPNSCore
    private let id: Int
    private var context: MockAPNSConnectionContext?
    private var requestCount = 0
    /// The highest stream id handed over so far: a GOAWAY names it, so no request decided lies above it.
    private var highestStreamID: Int32 = 0
    private var goAwaySent = false
    private var ids = MockRandom.systemSeeded()

    init(core: MockAPNSCore, id: Int) {
        self.core = core
        self.id = id
    }

    func connection(_ connection: HTTP2ServerConnection, didReceive request: HTTP2ServerRequest) {
        let knobs = core.knobs.withLock { $0 }
        requestCount += 1
        highestStreamID = max(highestStreamID, request.streamID)
        if knobs.abruptCloseAfterStreams.map({ requestCount > $0 }) == true {
            connection.abort()
            return
        }
        let context =
            self.context
            ?? MockAPNSConnectionContext(
                id: id, clientCertificate: connection.tlsInfo?.peerCertificate, environment: core.configuration.environment)
        self.context = context
        let mockRequest = MockAPNSRequest(
            method: request.method, path: request.path, headers: request.headers, payload: request.body,
            clientCertificateUID: context.certificateInfo?.subjectUID, connectionID: id,
            clientCertificateFingerprint: context.clientCertificate?.sha256Fingerprint)
        let given = request.header(APNSHeader.requestID)
        let requestID = given.flatMap { APNSID.isValid($0) ? $0 : nil } ?? APNSID.generate(using: &ids)
        let result = decide(mockRequest, context: context, knobs: knobs)
        var headers: [(name: String, value: String)] = [(APNSHeader.requestID, requestID)]
        let status: Int
        let body: [UInt8]
        switch result {
        case .passed(let answer):
            status = answer.status
            headers += answer.headers
            body = answer.body
        case .refused(let reason):
            status = reason.status ?? 400
            headers.append(("content-type", "application/json"))
            body = APNSRejection(reason).jsonBody()
        }
        let created = headers.first { $0.name == APNSHeader.channelID }?.value
        core.channels.log(
            MockAPNSChannelRequestRecord(
                method: request.method, path: request.path, channelID: created ?? request.header(APNSHeader.channelID),
                requestID: requestID, status: status, reason: result.refusal, connectionID: id,
                clientCertificateFingerprint: context.clientCertificate?.sha256Fingerprint))
        connection.respond(to: request.streamID, status: status, headers: headers, body: body)
        if let limit = knobs.goAwayAfterStreams, requestCount >= limit, !goAwaySent {
            goAwaySent = true
            core.recorder.countGoAways()
            connection.goAway(debugData: APNSRejection(knobs.goAwayReason).jsonBody(), lastStreamID: highestStreamID)
        }
    }

    func connectionDidClose(_ connection: HTTP2ServerConnection) {}

    /// The programmable handler first (as for pushes), then Apple's rules, then the fault rates.
    private func decide(
        _ request: MockAPNSRequest, context: MockAPNSConnectionContext, knobs: MockAPNSKnobs
    ) -> MockChecked<MockAPNSChannelRules.Answer> {
        if let handler = core.handler.withLock({ $0 }).handler, case .reject(let reason, _)? = handler(request) {
            return .refused(reason)
        }
        let authenticator = core.authenticator
        let core = self.core
        return MockAPNSChannelRules.handle(
            request, channels: core.channels, authenticate: { authenticator.authenticate($0, on: context) },
            fault: { core.rollFault(knobs) })
    }
}
