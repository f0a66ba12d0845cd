import ArgumentParsing

/// `pushctl send`: through push-server, or straight to APNs with `--direct`.
struct SendCommand: Command {
    let name = "send"
    let summary = "Send a push through push-server, or straight to APNs with --direct."

    let help = CommandHelp(
        overview:
            "Send a push through push-server to a user, tokens or a tokens file; or, with --direct, straight to APNs with a .p12 certificate or a .p8 signing key (token auth).",
        usage: [
            "pushctl send (--user <id> | --token <hex>... | --tokens-file <file>) [--wait] [payload options]",
            "pushctl send --direct --cert <file.p12> [--password-file <file>] (--env production|development | --host <h> --port <p> [--ca <pem>]) --token <hex> [payload options]",
            "pushctl send --direct --p8 <AuthKey.p8> --key-id <id> --team-id <id> --topic <bundle-id> (--env ... | --host <h> --port <p> [--ca <pem>]) --token <hex> [payload options]",
        ],
        options: [
            .value("user", "id", "Send to every device of this user (service)."),
            .value("token", "hex", "Device token.", repeatable: true),
            .value("tokens-file", "file", "One token per line; sent in batches with progress (service)."),
            .value("batch-size", "n", "Tokens per request with --tokens-file (default 5000)."),
            .flag("wait", "Wait for APNs and print each token's outcome (service)."),
            .flag("direct", "Send straight to APNs, without push-server."),
        ] + DirectSend.options + ServiceClient.specs + PushOptions.specs,
        examples: [
            "pushctl send --user alice --title 'Woof' --body 'Someone dropped their profile' --wait",
            "pushctl send --tokens-file tokens.txt --body 'Park meetup at 5' --output json",
            "pushctl send --direct --cert client.p12 --password-file pw.txt --env development --token <hex> --body Hi",
            "pushctl send --direct --cert ./creds/client.p12 --password-file ./creds/client.p12.password --host 127.0.0.1 --port 2197 --ca ./creds/ca.pem --token <hex> --body Hi",
            "pushctl send --direct --p8 ./creds/AuthKey_MOCKKEY001.p8 --key-id MOCKKEY001 --team-id MOCKTEAM01 --topic com.sniffmeet.app --host 127.0.0.1 --port 2197 --ca ./creds/ca.pem --token <hex> --body Hi",
        ])

    func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let format = try CommandInput(arguments, for: self).format
        let push = try PushOptions(arguments, command: name)
        if arguments.has("direct") {
            if arguments.value("api-key-file") != nil {
                throw CLIError.usage("--api-key-file is for push-server; --direct sends with --cert or --p8", command: name)
            }
            return try await DirectSend(arguments, command: name).run(push, format: format)
        }
        for option in DirectSend.options where arguments.value(option.name) != nil {
            throw CLIError.usage("--\(option.name) only applies with --direct", command: name)
        }
        return try await ServiceSend(arguments, command: name, format: format).run(push)
    }
}
