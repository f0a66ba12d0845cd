public import APNSCore

/// The apps a server pushes for and how a topic finds its app: the routing table between the outbox
/// worker (and the API's topic check) and the APNs clients.
///
/// A topic is served by the app that lists it (its bundle id, its extra topics, the topics its certificate
/// lists); failing that, by the app whose bundle id is the topic without a push type's suffix (`.voip`,
/// `.push-type.liveactivity`, `.complication`, ...); failing that, by the app that takes every topic (the
/// single app of a configuration without `apps`), if there is one.
public struct PushSenders: Sendable {
    /// Every app, in configuration order.
    public let apps: [PushApp]
    private let byTopic: [String: Int]
    private let anyTopic: Int?

    /// A table of `apps`; a topic listed by two apps goes to the first.
    public init(apps: [PushApp]) {
        self.apps = apps
        var byTopic: [String: Int] = [:]
        for (index, app) in apps.enumerated() {
            for topic in app.topics where byTopic[topic] == nil { byTopic[topic] = index }
        }
        self.byTopic = byTopic
        anyTopic = apps.firstIndex(where: \.servesAnyTopic)
    }

    /// One app named `default` that takes every topic, with one sender per environment.
    public init(production: any APNSSender, development: any APNSSender) {
        self.init(apps: [PushApp(name: "default", topics: [], servesAnyTopic: true, production: production, development: development)])
    }

    /// The app that serves `topic`, or nil when none does.
    public func app(forTopic topic: String) -> PushApp? {
        index(forTopic: topic).map { apps[$0] }
    }

    /// The position in `apps` of the app that serves `topic`.
    public func index(forTopic topic: String) -> Int? {
        if let index = byTopic[topic] { return index }
        for suffix in Self.suffixes where topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count {
            if let index = byTopic[String(topic.dropLast(suffix.count))] { return index }
        }
        return anyTopic
    }

    /// The app called `name`.
    public func app(named name: String) -> PushApp? {
        apps.first { $0.name == name }
    }

    /// Push type suffixes, longest first.
    private static let suffixes = PushType.all.compactMap(\.topicSuffix).sorted { $0.count > $1.count }

    /// Shuts every app's senders down.
    public func shutdown(deadline: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for app in apps {
                group.addTask { await app.production.shutdown(deadline: deadline) }
                group.addTask { await app.development.shutdown(deadline: deadline) }
            }
        }
    }
}
