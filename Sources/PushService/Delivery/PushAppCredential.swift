import APNS
import APNSCore
import Foundation
import PushTLS

/// One app's credential read from its files: what the APNs clients need, what `/healthz` shows, the
/// topics a certificate lists, and a fingerprint of the inputs so a reload of unchanged files changes nothing.
struct PushAppCredential {
    var credentials: APNSClientConfiguration.Credentials
    var status: PushAppStatus
    /// The topics the certificate may push to (extension 1.2.840.113635.100.6.3.6, else its UID); empty for tokens.
    var certificateTopics: [String]
    var fingerprint: [UInt8]

    /// Reads `app`'s `.p12` or `.p8`. Apps that name the same `.p8`, key id and team id share one token
    /// provider through `providers`, so their team has one token at a time (Apple answers
    /// TooManyProviderTokenUpdates to a team whose tokens change too often). Each problem is one line.
    static func load(
        _ app: PushServiceConfiguration.AppSettings, providers: inout [String: APNSTokenProvider]
    ) throws(ConfigurationError) -> PushAppCredential {
        var settings = PushServiceConfiguration.APNSSettings()
        settings.p12Path = app.p12Path
        settings.password = app.password
        if app.usesToken, let p8 = app.p8Path {
            guard let keyID = app.keyID, let teamID = app.teamID else {
                throw ConfigurationError(
                    "token authentication needs a key id and a team id: set apns.key_id and apns.team_id (or PUSH_APNS_KEY_ID, PUSH_APNS_TEAM_ID)")
            }
            guard let data = FileManager.default.contents(atPath: p8) else {
                throw ConfigurationError("APNs signing key \(p8) does not exist or cannot be read")
            }
            let fingerprint = SHA256Digest.hash(Array(data) + Array("\u{0}\(keyID)\u{0}\(teamID)".utf8))
            let shareKey = "\(p8)\u{0}\(keyID)\u{0}\(teamID)\u{0}\(fingerprint.map { String(format: "%02x", $0) }.joined())"
            let provider: APNSTokenProvider
            if let shared = providers[shareKey] {
                provider = shared
            } else {
                do {
                    let credentials = try APNSTokenCredentials(
                        privateKeyPEM: String(decoding: data, as: UTF8.self), keyID: keyID, teamID: teamID)
                    provider = try APNSTokenProvider(credentials: credentials)
                } catch {
                    throw ConfigurationError("APNs signing key \(p8) cannot be used: \(error)")
                }
                providers[shareKey] = provider
            }
            var status = PushAppStatus()
            status.kind = "token"
            status.source = p8
            status.keyID = keyID
            status.teamID = teamID
            return PushAppCredential(credentials: .tokenProvider(provider), status: status, certificateTopics: [], fingerprint: fingerprint)
        }
        let identity = try StartupChecks.identity(settings)
        var status = PushAppStatus()
        status.kind = "certificate"
        status.source = app.p12Path
        status.notAfter = identity.certificate.notAfter
        status.certificateTopics = identity.certificate.apns.allowedTopics
        let bytes = FileManager.default.contents(atPath: app.p12Path ?? "").map(Array.init) ?? []
        return PushAppCredential(
            credentials: .identity(identity), status: status, certificateTopics: identity.certificate.apns.allowedTopics,
            fingerprint: SHA256Digest.hash(bytes + Array("\u{0}\(app.password ?? "")".utf8)))
    }

    /// The topics `app` serves with this credential: the configured ones, then the certificate's.
    func topics(of app: PushServiceConfiguration.AppSettings) -> [String] {
        var topics = app.topic.isEmpty ? app.topics : app.configuredTopics
        for topic in certificateTopics where !topics.contains(topic) { topics.append(topic) }
        return topics
    }

    /// Refuses a certificate that cannot push to the app's bundle id (a renewal for another app, say).
    func check(serves app: PushServiceConfiguration.AppSettings) throws(ConfigurationError) {
        guard case .identity = credentials, !app.servesAnyTopic, !certificateTopics.isEmpty else { return }
        let base = app.topic
        guard certificateTopics.contains(base) else {
            throw ConfigurationError(
                "APNs certificate \(app.p12Path ?? "") is for \(certificateTopics.joined(separator: ", ")), not for app \(app.name)'s topic \(base)")
        }
    }
}
