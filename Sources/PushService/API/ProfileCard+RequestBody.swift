import APNSCore
package import ProfileDrop

extension ProfileCard {
    /// The card in a `PUT /v1/users/{id}` body; throws a 400 `APIError` for unknown or mistyped
    /// members. Limits are checked by `validate()`, as storing the card does.
    package init(_ body: JSONFields) throws(APIError) {
        try body.checkKnown(["name", "dog_name", "breed", "age", "bio", "image_url"])
        self.init(
            name: try body.requiredString("name"), dogName: try body.requiredString("dog_name"),
            breed: try body.string("breed", allowNull: true), age: try body.int("age", allowNull: true),
            bio: try body.string("bio", allowNull: true), imageURL: try body.string("image_url", allowNull: true))
    }
}
