import APNSCore
import ArgumentParsing
import JSON

/// `pushctl users put`: PUT /v1/users/{id}.
struct UsersPutCommand: ServiceCommand {
    let name = "users put"
    let summary = "Create or update a user's profile card."
    let help = CommandHelp(
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

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        var body: [String: JSONValue] = ["name": .string(try input.required("name")), "dog_name": .string(try input.required("dog-name"))]
        for (flag, key) in [("breed", "breed"), ("bio", "bio"), ("image-url", "image_url")] {
            if let value = input.value(flag) { body[key] = .string(value) }
        }
        if let age = try input.int("age") { body["age"] = .int(Int64(age)) }
        return ServiceClient.Request(method: "PUT", path: "/v1/users/\(ServiceClient.segment(input.positional))", body: .object(body))
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format) {
            Console.out("\(response.status == 201 ? "created" : "updated") user \(input.positional)")
        }
    }
}
