import APNSCore
import PushSync

extension MockAPNSCore {
    /// The answer for a broadcast: Apple's broadcast rules (see `MockAPNSBroadcastRules`), then the fault
    /// rates of `knobs` (nil: the knobs in force now), as for device pushes.
    func decideBroadcast(_ request: MockAPNSRequest, on connection: MockAPNSConnectionContext, knobs: MockAPNSKnobs?) -> Verdict {
        let topic = MockAPNSBroadcastRules.bundleID(in: request.path, prefix: APNSHeader.broadcastPathPrefix)
        let authenticator = self.authenticator
        if let reason = MockAPNSBroadcastRules.check(request, channels: channels, authenticate: { authenticator.authenticate($0, on: connection) }) {
            return Verdict(rejection: (reason.status ?? 400, reason, nil), topic: topic)
        }
        if let fault = rollFault(knobs) { return Verdict(rejection: (fault.status ?? 400, fault, nil), topic: topic) }
        return Verdict(rejection: nil, topic: topic)
    }

    /// A transient fault (429/500/503) drawn from the fault rates of `knobs` (nil: those in force now), or nil.
    func rollFault(_ knobs: MockAPNSKnobs?) -> APNSRejectionReason? {
        let rates = knobs?.faultRates ?? self.knobs.withLock { $0.faultRates }
        guard !rates.isZero else { return nil }
        return rates.reason(forRoll: random.withLock { $0.unit() })
    }
}
