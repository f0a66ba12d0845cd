/// What the console may show of the embedded mock APNs: its control API's address per app, and what it
/// received (the mocks keep their most recent records).
public struct ConsoleMockView: Sendable {
    /// Each app's mock control API base URL.
    public var controls: [(app: String, url: String)]
    /// Reads the records of every mock, oldest first.
    public var records: @Sendable () -> [ConsoleMockRecord]

    /// A view with `controls` reading `records`.
    public init(controls: [(app: String, url: String)], records: @escaping @Sendable () -> [ConsoleMockRecord]) {
        self.controls = controls
        self.records = records
    }
}
