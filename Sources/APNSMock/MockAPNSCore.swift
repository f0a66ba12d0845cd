import APNSCore
import Foundation
import PushSync
import Synchronization

/// What every connection of one server shares: configuration, token state, recorder, handler and the
/// seeded generator. Thread-safe (immutable or `PThreadLock`).
final class MockAPNSCore: Sendable {
    let configuration: MockAPNSServer.Configuration
    let authenticator: any MockAPNSAuthenticator
    /// Connections start at MAX_CONCURRENT_STREAMS 1 until authenticated (token auth).
    let startsAtOneStream: Bool
    let registry = MockAPNSTokenRegistry()
    let recorder: MockAPNSRecorder
    /// The programmable handler, boxed: a closure kept directly in a generic lock is re-abstracted on
    /// every `withLock` write-back, which nests one thunk per request until the stack overflows.
    let handler: PThreadLock<MockAPNSHandlerBox>
    private let random: PThreadLock<MockRandom>
    /// Requests received by all connections, for `abruptCloseEveryStreams`.
    private let requestsReceived = Atomic<Int>(0)

    init(configuration: MockAPNSServer.Configuration) {
        self.configuration = configuration
        authenticator = configuration.authenticator ?? MockAPNSCertificateAuthenticator()
        startsAtOneStream = authenticator.limitsStreamsUntilAuthenticated && !configuration.acceptAll
        handler = PThreadLock(MockAPNSHandlerBox(configuration.handler))
        recorder = MockAPNSRecorder(maxRecords: configuration.maxRecords)
        random = PThreadLock(MockRandom(seed: configuration.randomSeed))
    }

    /// The answer for one request: the handler, else the rules, token state and faults.
    func decide(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext)
        -> (rejection: (reason: APNSRejectionReason, timestamp: Date?)?, topic: String?) {
        if let handler = handler.withLock({ $0 }).handler, let decision = handler(request) {
            switch decision {
            case .accept: return (nil, request.topic)
            case .reject(let reason, let timestamp): return ((reason, timestamp), request.topic)
            }
        }
        switch MockAPNSRules.check(request, authenticate: { authenticator.authenticate(request, on: connection) }) {
        case .rejected(let reason, let topic):
            return ((reason, nil), topic)
        case .passed(let passed):
            if let rejection = registry.rejection(token: passed.token, topic: passed.topic) { return (rejection, passed.topic) }
            if !configuration.faultRates.isZero,
               let fault = configuration.faultRates.reason(forRoll: random.withLock { $0.unit() }) {
                return ((fault, nil), passed.topic)
            }
            return (nil, passed.topic)
        }
    }

    /// With `abruptCloseEveryStreams` set, counts one received request; true when it is the one to cut off.
    func countRequestAndCheckAbruptClose() -> Bool {
        guard let every = configuration.abruptCloseEveryStreams, every > 0 else { return false }
        return requestsReceived.wrappingAdd(1, ordering: .relaxed).newValue % every == 0
    }

    /// The next answer delay in seconds.
    func nextDelay() -> Double {
        if case .none = configuration.latency { return 0 }
        return random.withLock { configuration.latency.delay(using: &$0) }
    }
}

/// An immutable holder for the programmable handler (see ``MockAPNSCore/handler``).
final class MockAPNSHandlerBox: Sendable {
    let handler: MockAPNSHandler?
    init(_ handler: MockAPNSHandler?) { self.handler = handler }
}
