import APNSCore

/// Apple's request rules in the order the mock applies them; pure (no I/O, no state).
///
///  1. `:method` is POST                                   else 405 MethodNotAllowed
///  2. `:path` starts with `/3/device/`                    else 404 BadPath
///  3. a token follows                                     else 400 MissingDeviceToken
///  4. the token is 64…200 hex digits, an even count       else 400 BadDeviceToken
///  5. `apns-id`, when sent, is an 8-4-4-4-12 UUID         else 400 BadMessageId
///  6. no header appears twice                             else 400 DuplicateHeaders
///  7. authentication (certificate environment, UID; later JWT) → 403 BadCertificateEnvironment, …
///  8. a topic: `apns-topic`, or the certificate's only one else 400 MissingTopic
///  9. the topic is granted                                else 400 TopicDisallowed (base is ours) / BadTopic
/// 10. `apns-push-type` is known                           else 400 InvalidPushType
/// 11. the push type matches the topic suffix (mdm exempt) else 400 InvalidPushType
/// 11a. a `liveactivity` push comes with a provider token, not a certificate   else 400 TopicDisallowed
///     ([A] "Starting and updating Live Activities with ActivityKit push notifications" sends ActivityKit
///     pushes over "a token-based connection to APNs"; an Apple engineer on the developer forums, thread
///     712499, said certificate-based authentication is not supported for them; TopicDisallowed is the
///     answer a certificate got in jerryliurui/Live-Activities-Demo-NBA-Score#1, cured by a token.
///     docs/live-activities.md weighs the reports.)
/// 12. `apns-priority` is 10, 5 or 1, and not 10 for background else 400 BadPriority
/// 13. `apns-expiration` is an integer                     else 400 BadExpirationDate
/// 14. `apns-collapse-id` is at most 64 bytes              else 400 BadCollapseId
/// 15. the payload is not empty                            else 400 PayloadEmpty
/// 16. the payload fits (4096 bytes, 5120 for voip)        else 413 PayloadTooLarge
///
/// Identity comes before topics because the topic is judged against the authenticated sender (as
/// pushy checks topics in its authentication step). The server then applies token state (ExpiredToken,
/// Unregistered, DeviceTokenNotForTopic) and finally fault injection.
enum MockAPNSRules {
    /// A request that passed every rule.
    struct Passed: Sendable {
        /// The device token, lowercase hex.
        let token: String
        /// The topic in effect.
        let topic: String
        /// The push type in effect.
        let pushType: PushType
    }

    /// The verdict of the rules.
    enum Verdict: Sendable {
        case passed(Passed)
        case rejected(APNSRejectionReason, topic: String?)
    }

    /// Headers checked for repetition: every regular header (pseudo-headers are nghttp2's business).
    static func hasDuplicateHeaders(_ headers: [(name: String, value: String)]) -> Bool {
        var seen = Set<String>()
        for header in headers where !seen.insert(header.name).inserted { return true }
        return false
    }

    /// Whether `token` is 64…200 hex digits of even count.
    static func isWellFormedToken(_ token: String) -> Bool {
        let count = token.utf8.count
        guard count >= DeviceToken.minimumHexDigits, count <= DeviceToken.maximumHexDigits, count.isMultiple(of: 2) else {
            return false
        }
        return withBytes(of: token) { bytes in
            bytes.allSatisfy { byte in
                let folded = byte | 0x20
                return (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (folded >= UInt8(ascii: "a") && folded <= UInt8(ascii: "f"))
            }
        }
    }

    /// `token` in lowercase; the same string when it has no uppercase letter (the usual case).
    static func lowercasedToken(_ token: String) -> String {
        withBytes(of: token) { bytes in bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } } ? token.lowercased() : token
    }

    /// Runs `body` over the UTF-8 bytes of `text` in one buffer: a scan of a buffer compiles to a plain
    /// loop, where one of `String.UTF8View` went through its index checks for every byte.
    private static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var text = text
        return text.withUTF8(body)
    }

    /// Applies rules 1–16; `authenticate` runs at step 7.
    static func check(_ request: MockAPNSRequest, authenticate: () -> MockAPNSAuthentication) -> Verdict {
        let headerTopic = request.topic
        func reject(_ reason: APNSRejectionReason, topic: String? = headerTopic) -> Verdict { .rejected(reason, topic: topic) }

        guard request.method == "POST" else { return reject(.methodNotAllowed) }
        guard let rawToken = request.token else { return reject(.badPath) }
        guard !rawToken.isEmpty else { return reject(.missingDeviceToken) }
        guard isWellFormedToken(rawToken) else { return reject(.badDeviceToken) }
        if let id = request.header(APNSHeader.id), !APNSID.isValid(id) { return reject(.badMessageId) }
        guard !hasDuplicateHeaders(request.headers) else { return reject(.duplicateHeaders) }

        let grant: MockAPNSTopicGrant
        switch authenticate() {
        case .rejected(let reason): return reject(reason)
        case .authorized(let granted): grant = granted
        }
        guard let topic = headerTopic ?? grant.defaultTopic else { return reject(.missingTopic) }
        if let reason = grant.rejection(for: topic) { return reject(reason, topic: topic) }

        let pushType =
            request.header(APNSHeader.pushType).map(PushType.init(rawValue:))
            ?? MockAPNSTopicRules.impliedPushType(of: topic)
        guard pushType.isKnown else { return reject(.invalidPushType, topic: topic) }
        if pushType != .mdm, MockAPNSTopicRules.suffix(of: topic) != pushType.topicSuffix {
            return reject(.invalidPushType, topic: topic)
        }
        // A certificate's grant names its subject's bundle id; a provider token's names none.
        if pushType == .liveactivity, grant.bundleID != nil { return reject(.topicDisallowed, topic: topic) }
        if let text = request.header(APNSHeader.priority) {
            guard let priority = Priority(headerValue: text), !(priority == .immediately && pushType == .background) else {
                return reject(.badPriority, topic: topic)
            }
        }
        if let text = request.header(APNSHeader.expiration), Int64(text) == nil {
            return reject(.badExpirationDate, topic: topic)
        }
        if let collapseID = request.header(APNSHeader.collapseID), collapseID.utf8.count > APNSHeader.maxCollapseIDBytes {
            return reject(.badCollapseId, topic: topic)
        }
        guard !request.payload.isEmpty else { return reject(.payloadEmpty, topic: topic) }
        guard request.payload.count <= pushType.maxPayloadBytes else { return reject(.payloadTooLarge, topic: topic) }
        return .passed(Passed(token: lowercasedToken(rawToken), topic: topic, pushType: pushType))
    }
}
