import Foundation
public import JSON
public import PushStore

/// A user's profile card, shown to the peer on a mate request and carried inside the push payload. The
/// store keeps it as its encoded text (`UserRecord.cardJSON`); this type owns its fields and limits.
///
/// Encoded as JSON with snake_case keys (`name`, `dog_name`, `breed`, `age`, `bio`, `image_url`).
/// The encoded card is capped at `maxEncodedBytes` (2 KB) so it fits with room to spare in a
/// 4 KB APNs payload next to the `aps` dictionary and the drop id.
public struct ProfileCard: Sendable, Equatable {
    /// The owner's display name (1–50 characters).
    public var name: String
    /// The dog's name (1–50 characters).
    public var dogName: String
    /// The dog's breed (up to 50 characters).
    public var breed: String?
    /// The dog's age in years (0–40).
    public var age: Int?
    /// A short bio (up to 300 characters).
    public var bio: String?
    /// An http(s) URL of the profile image (up to 512 bytes).
    public var imageURL: String?

    /// The largest encoded card the store accepts, in bytes.
    public static let maxEncodedBytes = 2_048

    /// Creates a card; call `validate()` (`UserRepository.put(id:card:now:)` does) before trusting it.
    public init(
        name: String, dogName: String, breed: String? = nil, age: Int? = nil,
        bio: String? = nil, imageURL: String? = nil
    ) {
        self.name = name
        self.dogName = dogName
        self.breed = breed
        self.age = age
        self.bio = bio
        self.imageURL = imageURL
    }

    /// Throws `PushStoreError` if a field breaks its limit or the encoded card exceeds `maxEncodedBytes`.
    public func validate() throws(PushStoreError) {
        try Self.check(name, "name", required: true, maxCharacters: 50)
        try Self.check(dogName, "dog_name", required: true, maxCharacters: 50)
        try Self.check(breed, "breed", required: false, maxCharacters: 50)
        try Self.check(bio, "bio", required: false, maxCharacters: 300)
        if let age, !(0...40).contains(age) {
            throw .invalidField(field: "age", reason: "must be 0-40")
        }
        if let imageURL {
            try StoreValidation.optional(imageURL, field: "image_url", max: 512)
            guard imageURL.hasPrefix("https://") || imageURL.hasPrefix("http://"),
                imageURL.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw .invalidField(field: "image_url", reason: "must be an http(s) URL of printable ASCII without spaces")
            }
        }
        let size = encodedJSON().utf8.count
        guard size <= Self.maxEncodedBytes else { throw .profileTooLarge(bytes: size, limit: Self.maxEncodedBytes) }
    }

    private static func check(
        _ value: String?, _ field: String, required: Bool,
        maxCharacters: Int
    ) throws(PushStoreError) {
        guard let value, !value.isEmpty else {
            if required { throw .invalidField(field: field, reason: "must not be empty") }
            return
        }
        // Unicode code points, as JSON Schema's maxLength counts.
        guard value.unicodeScalars.count <= maxCharacters else {
            throw .invalidField(field: field, reason: "longer than \(maxCharacters) characters")
        }
    }

    /// The card as JSON with the store's snake_case keys; absent fields are omitted.
    public var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "dog_name": .string(dogName)]
        if let breed { members["breed"] = .string(breed) }  // only the fields that are set: see APNSPayload.jsonValue
        if let age { members["age"] = .int(Int64(age)) }
        if let bio { members["bio"] = .string(bio) }
        if let imageURL { members["image_url"] = .string(imageURL) }
        return .object(members)
    }

    /// The card as compact JSON with sorted keys (what the store keeps).
    public func encodedJSON() -> String {
        String(decoding: json.serialized(), as: UTF8.self)
    }

    /// A card from `encodedJSON()` text; throws when it is not such an object.
    public static func decode(json text: String) throws -> ProfileCard {
        let value = try JSONValue.parse(Array(text.utf8))
        guard let name = value["name"]?.stringValue, let dogName = value["dog_name"]?.stringValue else {
            throw PushStoreError.invalidField(field: "card", reason: "stored card lacks name or dog_name")
        }
        return ProfileCard(
            name: name, dogName: dogName, breed: value["breed"]?.stringValue, age: value["age"]?.intValue,
            bio: value["bio"]?.stringValue, imageURL: value["image_url"]?.stringValue)
    }
}
