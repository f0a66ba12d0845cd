import APNSCore
import ArgumentParsing
import JSON

/// `pushctl users put`: PUT /v1/users/{id}.
enum UsersPutCommand: Command {
    static let name = "users put"
    static let summary = "Create or update a user's profile card."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Create or update a user's profile card (PUT /v1/users/{id}).",
            usage: ["pushctl users put <id> --name N --dog-name N [--breed B] [--age N] [--bio TEXT] [--image-url URL]"],
            arguments: [("<id>", "The user id.")],
            options: [
                .value("name", "text", "The owner's name (required)."),
                .value("dog-name", "text", "The dog's name (required; the card is replaced whole)."),
                .value("breed", "text", "The dog's breed."),
                .value("age", "n", "The dog's age in years."),
                .value("bio", "text", "A short introduction."),
                .value("image-url", "url", "Profile image URL."),
            ] + ServiceClient.specs,
            examples: ["pushctl users put alice --name Alice --dog-name Bori --breed Jindo --age 3"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let id = try arguments.positionals(["id"], command: name)[0]
        var body: [String: JSONValue] = [
            "name": .string(try arguments.required("name", command: name)),
            "dog_name": .string(try arguments.required("dog-name", command: name)),
        ]
        for (flag, key) in [("breed", "breed"), ("bio", "bio"), ("image-url", "image_url")] {
            if let value = arguments.value(flag) { body[key] = .string(value) }
        }
        if let age = try arguments.int("age", command: name) { body["age"] = .int(Int64(age)) }
        let response = try await ServiceClient(arguments).send("PUT", "/v1/users/\(ServiceClient.segment(id))", body: .object(body))
        if format == .table {
            Console.out("\(response.status == 201 ? "created" : "updated") user \(id)")
        } else {
            ServiceOutput.print(response, format: format)
        }
        return ExitCode.ok
    }
}
