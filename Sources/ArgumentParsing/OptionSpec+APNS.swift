/// The options every program that connects to APNs itself names alike (`push-server`, `pushctl send --direct`),
/// each called `prefix` + its name: `apns-` in push-server's options, which configure much besides APNs, none
/// in pushctl's.
extension OptionSpec {
    /// Provider-token authentication: the .p8 signing key, its key id and the team id.
    public static func apnsTokenKey(prefix: String) -> [OptionSpec] {
        [
            .value(prefix + "p8", "file.p8", "APNs signing key (.p8) for token authentication, instead of a .p12 certificate"),
            .value(prefix + "key-id", "id", "the .p8 key's 10-character key id"),
            .value(prefix + "team-id", "id", "the 10-character team id of the .p8 key"),
        ]
    }

    /// Another APNs than Apple's (a mock, a relay): its host, port and the CA its certificate is issued by.
    public static func apnsEndpoint(prefix: String) -> [OptionSpec] {
        [
            .value(prefix + "host", "host", "APNs host override, e.g. a mock"),
            .value(prefix + "port", "n", "APNs port override"),
            .value(prefix + "ca", "pem", "CA (PEM) to trust for the APNs host override"),
        ]
    }

    /// The option with its help as a sentence, capitalized and ending in a period, for a help page written
    /// in sentences.
    public var sentence: OptionSpec {
        var help = help
        if let first = help.first { help = first.uppercased() + help.dropFirst() }
        if !help.hasSuffix(".") { help += "." }
        return OptionSpec(
            name: name, short: short, value: value, help: help, repeatable: repeatable, choices: choices, secret: secret)
    }
}
