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
    /// Broadcast channels, shared by the push listener (broadcasts) and the channel management listener.
    let channels = MockAPNSChannelRegistry()
    let recorder: MockAPNSRecorder
    /// Rules added at run time (control API or `addRule`), tried before the handler.
    let rules = MockAPNSRuleBook()
    /// The fault knobs, read once per request; changed at run time.
    let knobs: PThreadLock<MockAPNSKnobs>
    /// The programmable handler, boxed: a closure kept directly in a generic lock is re-abstracted on
    /// every `withLock` write-back, which nests one thunk per request until the stack overflows.
    let handler: PThreadLock<MockAPNSHandlerBox>
    let random: PThreadLock<MockRandom>
    /// Requests received by all connections, for `abruptCloseEveryStreams`.
    private let requestsReceived = Atomic<Int>(0)

    init(configuration: MockAPNSServer.Configuration) {
        self.configuration = configuration
        authenticator = configuration.authenticator ?? MockAPNSCertificateAuthenticator()
        startsAtOneStream = authenticator.limitsStreamsUntilAuthenticated && !configuration.acceptAll
        handler = PThreadLock(MockAPNSHandlerBox(configuration.handler))
        recorder = MockAPNSRecorder(maxRecords: configuration.maxRecords)
        random = PThreadLock(MockRandom(seed: configuration.randomSeed))
        knobs = PThreadLock(MockAPNSKnobs(configuration))
    }

    /// What `decide` found: a rejection (status, reason, timestamp) or nil for 200, the topic in
    /// effect, and a rule's own delay (nil: the latency knob decides).
    struct Verdict {
        var rejection: (status: Int, reason: APNSRejectionReason, timestamp: Date?)?
        var topic: String?
        var delay: Duration?
    }

    /// The answer for one request: a matching rule, else the handler, else Apple's rules, token state
    /// and the fault rates of `knobs` (nil: the knobs in force now).
    func decide(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext, knobs: MockAPNSKnobs? = nil) -> Verdict {
        if let rule = rules.take(for: request) {
            switch rule.answer {
            case .accept: return Verdict(rejection: nil, topic: request.topic, delay: rule.delay)
            case .reject(let status, let reason, let timestamp):
                return Verdict(rejection: (status, reason, timestamp), topic: request.topic, delay: rule.delay)
            }
        }
        if let handler = handler.withLock({ $0 }).handler, let decision = handler(request) {
            switch decision {
            case .accept: return Verdict(rejection: nil, topic: request.topic)
            case .reject(let reason, let timestamp):
                return Verdict(rejection: (reason.status ?? 400, reason, timestamp), topic: request.topic)
            }
        }
        if MockAPNSBroadcastRules.isBroadcast(request.path) { return decideBroadcast(request, on: connection, knobs: knobs) }
        switch MockAPNSRules.check(request, authenticate: { authenticator.authenticate(request, on: connection) }) {
        case .rejected(let reason, let topic):
            return Verdict(rejection: (reason.status ?? 400, reason, nil), topic: topic)
        case .passed(let passed):
            if let rejection = registry.rejection(token: passed.token, topic: passed.topic) {
                return Verdict(rejection: (rejection.reason.status ?? 400, rejection.reason, rejection.timestamp), topic: passed.topic)
            }
            let rates = knobs?.faultRates ?? self.knobs.withLock { $0.faultRates }
            if !rates.isZero,
                let fault = rates.reason(forRoll: random.withLock { $0.unit() })
            {
                return Verdict(rejection: (fault.status ?? 400, fault, nil), topic: passed.topic)
            }
            return Verdict(rejection: nil, topic: passed.topic)
        }
    }

    /// With `abruptCloseEveryStreams` set, counts one received request; true when it is the one to cut off.
    func countRequestAndCheckAbruptClose(_ knobs: MockAPNSKnobs) -> Bool {
        guard let every = knobs.abruptCloseEveryStreams, every > 0 else { return false }
        return requestsReceived.wrappingAdd(1, ordering: .relaxed).newValue % every == 0
    }

    /// The next answer delay.
    func nextDelay(_ knobs: MockAPNSKnobs) -> Duration {
        switch knobs.latency {
        case .none: return .zero
        case .fixed(let delay): return max(.zero, delay)  // no draw: no lock to take
        case .jitter: return random.withLock { knobs.latency.delay(using: &$0) }
        }
    }
}

/// An immutable holder for the programmable handler (see ``MockAPNSCore/handler``).
final class MockAPNSHandlerBox: Sendable {
    let handler: MockAPNSHandler?
    init(_ handler: MockAPNSHandler?) { self.handler = handler }
}
