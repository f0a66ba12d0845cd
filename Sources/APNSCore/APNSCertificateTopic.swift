/// One entry of Apple's topics extension (1.2.840.113635.100.6.3.6): a topic and the push
/// kinds ("app", "voip", "complication", ...) the certificate may send to it.
public struct APNSCertificateTopic: Sendable, Equatable, Hashable {
    /// The topic, e.g. "com.example.app" or "com.example.app.voip".
    public let topic: String
    /// The kinds Apple lists for the topic, e.g. ["app"] or ["voip"].
    public let kinds: [String]

    /// Creates an entry.
    public init(topic: String, kinds: [String]) {
        self.topic = topic
        self.kinds = kinds
    }

    /// An entry whose kind is inferred from the topic's suffix the way Apple names them:
    /// ".voip" → "voip", ".complication" → "complication", otherwise "app".
    public init(inferringKindOf topic: String) {
        let kind: String
        if topic.hasSuffix(".voip") {
            kind = "voip"
        } else if topic.hasSuffix(".complication") {
            kind = "complication"
        } else {
            kind = "app"
        }
        self.init(topic: topic, kinds: [kind])
    }
}

/// Apple's certificate extensions for APNs and the DER layout of the topics one.
///
/// The topics extension value is one SEQUENCE whose elements alternate: a UTF8String topic, then a
/// SEQUENCE of UTF8String kinds for that topic, e.g.
/// `SEQUENCE { "com.a", SEQUENCE { "app" }, "com.a.voip", SEQUENCE { "voip" } }`.
/// The reader also accepts each pair wrapped in its own SEQUENCE and an extra OCTET STRING wrapper,
/// so hand-made test certificates decode as well.
package enum APNSCertificateExtensions {
    /// Present when the certificate may talk to the development (sandbox) gateway.
    package static let developmentOID = "1.2.840.113635.100.6.3.1"
    /// Present when the certificate may talk to the production gateway.
    package static let productionOID = "1.2.840.113635.100.6.3.2"
    /// The list of topics the certificate may push to.
    package static let topicsOID = "1.2.840.113635.100.6.3.6"

    /// Decodes the topics extension value; an empty list if it is malformed.
    package static func decodeTopics(_ bytes: [UInt8]) -> [APNSCertificateTopic] {
        guard let top = DER.elements(bytes[...]), top.count == 1 else { return [] }
        return decodeTopics(element: top[0])
    }

    private static func decodeTopics(element: DER.Element) -> [APNSCertificateTopic] {
        if element.tag == DER.Tag.octetString {
            return decodeTopics(Array(element.content))
        }
        guard element.tag == DER.Tag.sequence, let children = element.children else { return [] }
        var entries: [APNSCertificateTopic] = []
        var pendingTopic: String?
        var pendingKinds: [String] = []
        func flush() {
            if let topic = pendingTopic {
                entries.append(APNSCertificateTopic(topic: topic, kinds: pendingKinds))
            }
            pendingTopic = nil
            pendingKinds = []
        }
        for child in children {
            if let topic = child.string {
                flush()
                pendingTopic = topic
            } else if let inner = child.children {
                if inner.count == 2, let topic = inner[0].string, let kinds = inner[1].children {
                    // A (topic, kinds) pair wrapped in its own SEQUENCE.
                    flush()
                    entries.append(APNSCertificateTopic(topic: topic, kinds: kinds.compactMap(\.string)))
                } else {
                    pendingKinds += inner.compactMap(\.string)
                }
            }
        }
        flush()
        return entries
    }

    /// Encodes topics in Apple's flat alternating layout.
    package static func encodeTopics(_ topics: [APNSCertificateTopic]) -> [UInt8] {
        var elements: [[UInt8]] = []
        for entry in topics {
            elements.append(DER.utf8String(entry.topic))
            elements.append(DER.sequence(entry.kinds.map(DER.utf8String)))
        }
        return DER.sequence(elements)
    }

    /// The value Apple gives the development and production marker extensions: DER NULL.
    package static let markerValue: [UInt8] = [DER.Tag.null, 0x00]
}
