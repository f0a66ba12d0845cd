import APNSCore
import ArgumentParsing

/// `pushctl devices rm`: DELETE /v1/devices/{token}.
struct DevicesRemoveCommand: ServiceCommand {
    let name = "devices rm"
    let summary = "Remove a device token."
    let help = CommandHelp(
        overview: "Remove a device token (DELETE /v1/devices/{token}).",
        usage: ["pushctl devices rm <token>"],
        arguments: [("<token>", "The device token (hex).")],
        options: ServiceClient.specs,
        examples: ["pushctl devices rm 3f2a...c9"])

    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request {
        ServiceClient.Request(method: "DELETE", path: "/v1/devices/\(try input.deviceToken(input.positional, label: "token").hex)")
    }

    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        let hex = (try? DeviceToken(input.positional))?.hex ?? input.positional
        ServiceOutput.print(response, format: input.format) { Console.out("removed \(hex)") }
    }
}
