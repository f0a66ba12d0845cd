/// A minimal DER reader and writer for the few structures this module handles by hand
/// (Apple's topics extension). Only definite lengths, as DER requires.
enum DER {
    /// Universal tags used here.
    enum Tag {
        static let null: UInt8 = 0x05
        static let octetString: UInt8 = 0x04
        static let utf8String: UInt8 = 0x0C
        static let printableString: UInt8 = 0x13
        static let ia5String: UInt8 = 0x16
        static let sequence: UInt8 = 0x30
    }

    /// One decoded element: its tag byte and its content bytes.
    struct Element {
        let tag: UInt8
        let content: ArraySlice<UInt8>

        /// The content as text, for the string types; nil for anything else.
        var string: String? {
            switch tag {
            case Tag.utf8String, Tag.printableString, Tag.ia5String:
                return String(validating: content, as: UTF8.self)
            default:
                return nil
            }
        }

        /// The children of a constructed element (SEQUENCE or SET), or nil if malformed.
        var children: [Element]? {
            guard tag & 0x20 != 0 else { return nil }
            return DER.elements(content)
        }
    }

    /// Splits `bytes` into consecutive top-level elements; nil if any is malformed or truncated.
    static func elements(_ bytes: ArraySlice<UInt8>) -> [Element]? {
        var result: [Element] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let tag = bytes[index]
            // Multi-byte tags never occur in the structures read here.
            guard tag & 0x1F != 0x1F else { return nil }
            index += 1
            guard index < bytes.endIndex else { return nil }
            let first = bytes[index]
            index += 1
            var length = 0
            if first < 0x80 {
                length = Int(first)
            } else {
                let count = Int(first & 0x7F)
                guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
                for _ in 0..<count {
                    length = (length << 8) | Int(bytes[index])
                    index += 1
                }
            }
            guard length <= bytes.endIndex - index else { return nil }
            result.append(Element(tag: tag, content: bytes[index..<(index + length)]))
            index += length
        }
        return result
    }

    /// Encodes one element with a definite length.
    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            out.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + content
    }

    /// A UTF8String element.
    static func utf8String(_ text: String) -> [UInt8] {
        encode(tag: Tag.utf8String, Array(text.utf8))
    }

    /// A SEQUENCE of already encoded elements.
    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        encode(tag: Tag.sequence, elements.flatMap { $0 })
    }
}
