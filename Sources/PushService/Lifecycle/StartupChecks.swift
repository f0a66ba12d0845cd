import APNS
import Foundation
import PushStoreSQL
import PushTLS

/// The checks `push-server` runs before serving; each failure is one clear line and exit code 78.
enum StartupChecks {
    /// The APNs credentials: a `.p8` token key when one is configured, otherwise the `.p12` certificate.
    /// One token provider serves both environments' clients, so the team has one token at a time.
    static func credentials(_ settings: PushServiceConfiguration.APNSSettings) throws(ConfigurationError) -> APNSClientConfiguration.Credentials {
        guard let p8 = settings.p8Path, !p8.isEmpty else { return .identity(try identity(settings)) }
        guard let keyID = settings.keyID, let teamID = settings.teamID else {
            throw ConfigurationError(
                "token authentication needs a key id and a team id: set apns.key_id and apns.team_id (or PUSH_APNS_KEY_ID, PUSH_APNS_TEAM_ID)")
        }
        guard FileManager.default.isReadableFile(atPath: p8) else {
            throw ConfigurationError("APNs signing key \(p8) does not exist or cannot be read")
        }
        do {
            return .tokenProvider(try APNSTokenProvider(credentials: try APNSTokenCredentials.load(p8Path: p8, keyID: keyID, teamID: teamID)))
        } catch {
            throw ConfigurationError("APNs signing key \(p8) cannot be used: \(error)")
        }
    }

    /// Loads the APNs provider certificate, naming the exact problem (missing, wrong password, expired…).
    static func identity(_ settings: PushServiceConfiguration.APNSSettings) throws(ConfigurationError) -> TLSIdentity {
        guard let path = settings.p12Path, !path.isEmpty else {
            throw ConfigurationError("no APNs certificate configured: set apns.p12, PUSH_APNS_P12 or --apns-p12 (or use --embedded)")
        }
        return try TLSIdentity.checked(
            "APNs certificate \(path)",
            explain: { kind in
                switch kind {
                case .fileMissing: "APNs certificate \(path) does not exist or cannot be read"
                case .wrongPassword: "wrong password for APNs certificate \(path)"
                case .notPKCS12: "APNs certificate \(path) is not a PKCS#12 (.p12) file"
                case .noPrivateKey: "APNs certificate \(path) holds no private key"
                default: nil
                }
            }
        ) { try TLSIdentity(p12Path: path, password: settings.password ?? "") }
    }

    /// The CA to trust for a custom APNs host, if configured.
    static func trustedCA(_ settings: PushServiceConfiguration.APNSSettings) throws(ConfigurationError) -> String? {
        guard let path = settings.caPath else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("APNs CA file \(path) does not exist or cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Makes sure the database's directory exists and the database can be written.
    /// The store's location: a PostgreSQL URL must name a host and a database (connecting is the real
    /// check, made when the store opens); a SQLite path must be in a writable directory.
    static func database(_ configuration: PushServiceConfiguration) throws(ConfigurationError) {
        guard configuration.usesPostgres else { return try databasePath(configuration.resolvedDatabasePath) }
        // libpq reads it (several hosts included: `postgresql://a:5432,b:5432/db`, `host=a,b port=…`).
        guard let settings = PostgresDatabase.connectionSettings(configuration.resolvedDatabasePath),
            !(settings["dbname"] ?? "").isEmpty, !(settings["host"] ?? "").isEmpty || !(settings["hostaddr"] ?? "").isEmpty
        else {
            throw ConfigurationError(
                "database URL \(configuration.databaseDescription) is not postgres://user:password@host:port/database")
        }
    }

    static func databasePath(_ path: String) throws(ConfigurationError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ConfigurationError("database directory \(directory) cannot be created")
            }
        } else if !isDirectory.boolValue {
            throw ConfigurationError("database directory \(directory) is not a directory")
        }
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw ConfigurationError("database directory \(directory) is not writable")
        }
        if FileManager.default.fileExists(atPath: path), !FileManager.default.isWritableFile(atPath: path) {
            throw ConfigurationError("database \(path) is not writable")
        }
    }

    /// At least one API key must be configured outside the embedded mode.
    static func apiKeys(_ keys: [APIKey]) throws(ConfigurationError) {
        guard !keys.isEmpty else {
            throw ConfigurationError("no API key configured: set api_keys, PUSH_API_KEY or --api-key-file")
        }
    }
}
