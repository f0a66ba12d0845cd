import ArgumentParsing
import JSON

/// `pushctl users`: profile cards.
extension ServiceCall {
    /// `pushctl users put`: PUT /v1/users/{id}.
    static let usersPut = ServiceCall(
        "users put", summary: "Create or update a user's profile card.",
        overview: "Create or update a user's profile card (PUT /v1/users/{id}).",
        usage: ["pushctl users put <id> --name N --dog-name N [--breed B] [--age N] [--bio TEXT] [--image-url URL]"],
        argument: ("<id>", "The user id."),
        options: [
            .value("name", "text", "The owner's name (required)."),
            .value("dog-name", "text", "The dog's name (required; the card is replaced whole)."),
            .value("breed", "text", "The dog's breed."),
            .value("age", "n", "The dog's age in years."),
            .value("bio", "text", "A short introduction."),
            .value("image-url", "url", "Profile image URL."),
        ],
        examples: ["pushctl users put alice --name Alice --dog-name Bori --breed Jindo --age 3"],
        table: .line { response, input in "\(response.status == 201 ? "created" : "updated") user \(input.positional)" }
    ) { input throws(CLIError) in
        var body: [String: JSONValue] = ["name": .string(try input.required("name")), "dog_name": .string(try input.required("dog-name"))]
        for (flag, key) in [("breed", "breed"), ("bio", "bio"), ("image-url", "image_url")] {
            if let value = input.value(flag) { body[key] = .string(value) }
        }
        if let age = try input.int("age") { body["age"] = .int(Int64(age)) }
        return .put("/v1/users/\(input.pathSegment)", .object(body))
    }

    /// `pushctl users get`: GET /v1/users/{id}.
    static let usersGet = ServiceCall(
        "users get", summary: "Show a user's profile card.", overview: "Show a user's profile card (GET /v1/users/{id}).",
        usage: ["pushctl users get <id> [--output table|json|yaml]"], argument: ("<id>", "The user id."),
        examples: ["pushctl users get alice"]
    ) { input in .get("/v1/users/\(input.pathSegment)") }
}
