import APNSCore
import ArgumentParsing

/// `pushctl devices rm`: DELETE /v1/devices/{token}.
enum DevicesRemoveCommand: Command {
    static let name = "devices rm"
    static let summary = "Remove a device token."
    static var help: CommandHelp {
        CommandHelp(
            overview: "Remove a device token (DELETE /v1/devices/{token}).",
            usage: ["pushctl devices rm <token>"], arguments: [("<token>", "The device token (hex).")],
            options: ServiceClient.specs, examples: ["pushctl devices rm 3f2a...c9"])
    }

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let format = try OutputFormat(arguments, command: name)
        let text = try arguments.positionals(["token"], command: name)[0]
        let token: DeviceToken
        do { token = try DeviceToken(text) } catch { throw CLIError.usage("bad token: \(error)", command: name) }
        let response = try await ServiceClient(arguments).send("DELETE", "/v1/devices/\(token.hex)")
        if format == .table { Console.out("removed \(token.hex)") } else { ServiceOutput.print(response, format: format) }
        return ExitCode.ok
    }
}
