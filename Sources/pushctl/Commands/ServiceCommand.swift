import ArgumentParsing

/// A command that sends push-server one request and prints its answer. It says which request and how a table
/// shows the answer; reading the output format and the positionals its help lists, building the client,
/// sending, mapping failures to exit codes and printing JSON or YAML are written once here.
protocol ServiceCommand: Command {
    /// The request `input` asks for.
    func request(_ input: CommandInput) throws(CLIError) -> ServiceClient.Request
    /// Prints the answer in `input.format`.
    func show(_ response: ServiceClient.Response, _ input: CommandInput)
    /// The exit code for a sent request's answer.
    func exitCode(_ response: ServiceClient.Response) -> Int32
}

extension ServiceCommand {
    func show(_ response: ServiceClient.Response, _ input: CommandInput) {
        ServiceOutput.print(response, format: input.format)
    }

    func exitCode(_ response: ServiceClient.Response) -> Int32 { ExitCode.ok }

    func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let input = try CommandInput(arguments, for: self)
        let request = try request(input)
        let response = try await ServiceClient(arguments).send(request)
        show(response, input)
        return exitCode(response)
    }
}
