/// A failure in the TLS layer: loading credentials, building contexts or signing.
public struct TLSError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, coarse enough for callers to branch on.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A file named by the caller does not exist or cannot be read.
        case fileMissing
        /// The password does not open the PKCS#12 file.
        case wrongPassword
        /// The data is not a PKCS#12 (.p12) structure.
        case notPKCS12
        /// The credential holds no private key.
        case noPrivateKey
        /// The credential holds no certificate.
        case noCertificate
        /// The certificate's validity period is over (or has not begun).
        case expiredCertificate
        /// The text is not the PEM object that was expected.
        case invalidPEM
        /// The private key does not belong to the certificate.
        case keyMismatch
        /// The key is not of the kind required (for example not EC P-256).
        case unsupportedKey
        /// Any other OpenSSL failure; `function` and `openSSLErrors` say more.
        case openSSL
    }

    /// The category of the failure.
    public let kind: Kind
    /// A one-line human explanation, e.g. "wrong password for /x/a.p12".
    public let message: String
    /// The OpenSSL C function that failed, when one did.
    public let function: String?
    /// OpenSSL's error queue at the time of the failure, oldest first.
    public let openSSLErrors: [String]

    /// Creates an error; the OpenSSL queue is passed in by the caller (see `OpenSSLCall`).
    public init(_ kind: Kind, _ message: String, function: String? = nil, openSSLErrors: [String] = []) {
        self.kind = kind
        self.message = message
        self.function = function
        self.openSSLErrors = openSSLErrors
    }

    /// The message, followed by the failing function and OpenSSL's reasons when present.
    public var description: String {
        var text = message
        if let function {
            text += " (\(function) failed)"
        }
        if !openSSLErrors.isEmpty {
            text += ": " + openSSLErrors.joined(separator: "; ")
        }
        return text
    }
}
