internal import COpenSSL
import Foundation

/// Owns one OpenSSL `X509*`, freed in `deinit`.
///
/// `@unchecked Sendable`: immutable once wrapped (`raw` is a `let` and nothing mutates the certificate),
/// and OpenSSL 3 allows concurrent reads of an `X509` from any thread (its cached extension data is locked).
package final class X509Handle: @unchecked Sendable {
    /// The `X509*`.
    package let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    package init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference to a certificate someone else owns.
    package init(retaining raw: OpaquePointer) {
        X509_up_ref(raw)
        self.raw = raw
    }

    deinit {
        X509_free(raw)
    }

    /// The certificate as PEM text.
    package func pem() throws -> String {
        let bio = try MemoryBIO()
        try OpenSSLCall.check(status: PEM_write_bio_X509(bio.raw, raw), "PEM_write_bio_X509")
        return bio.text
    }

    /// The first subject entry with the given NID, as UTF-8.
    func subjectEntry(nid: Int32) -> String? {
        guard let name = X509_get_subject_name(raw) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, data)
        guard length >= 0, let out else { return nil }
        defer { push_OPENSSL_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    /// The subject in OpenSSL's one-line form, e.g. "/UID=com.a/CN=Apple Push Services: com.a".
    func subjectLine() -> String {
        guard let name = X509_get_subject_name(raw), let line = X509_NAME_oneline(name, nil, 0) else { return "" }
        defer { push_OPENSSL_free(line) }
        return String(cString: line)
    }

    /// The DER content of the extension with this dotted OID, or nil when absent.
    func extensionValue(oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLCall.clearErrors()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(raw, object, -1)
        guard index >= 0, let ext = X509_get_ext(raw, index), let data = X509_EXTENSION_get_data(ext) else {
            return nil
        }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// The notBefore and notAfter dates.
    func validity() -> (notBefore: Date, notAfter: Date) {
        (Self.date(X509_get0_notBefore(raw)), Self.date(X509_get0_notAfter(raw)))
    }

    /// Colon-separated upper-case hex SHA-256 of the DER form, as `openssl x509 -fingerprint` prints.
    func sha256Fingerprint() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(raw, EVP_sha256(), &digest, &length) == 1 else {
            OpenSSLCall.clearErrors()
            return ""
        }
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        guard let time else { return Date(timeIntervalSince1970: 0) }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }
}
