import APNS
import APNSCore
import APNSMock
import Foundation
import PushIO
import PushTLSTesting
import TestSupport
import Testing

/// The real proxies the tests start (tinyproxy for HTTP CONNECT, danted for SOCKS5).
enum ProxyCase: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case tinyproxy, tinyproxyBasicAuth, dantedUsername

    var testDescription: String { rawValue }

    func start() async throws -> ProxyProcess {
        switch self {
        case .tinyproxy: try await .tinyproxy()
        case .tinyproxyBasicAuth: try await .tinyproxy(credentials: ("push", "pr0xy-\(UUID().uuidString.prefix(8))"))
        case .dantedUsername: try await .danted()
        }
    }
}

/// Waits until `process` logged a tunnel to the mock for each connection the mock accepted, then checks
/// that it logged no other: every connection reached the mock through the proxy, none went direct.
func expectEveryConnectionTunnelled(_ process: ProxyProcess, _ fixture: ClientFixture, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
{
    let connections = fixture.server.counters().connections
    #expect(connections > 0, "the mock accepted no connection", sourceLocation: sourceLocation)
    try await process.waitForTunnels(count: connections, toPort: fixture.server.port)
    #expect(
        process.tunnels(toPort: fixture.server.port) == connections, "tunnels logged vs connections the mock accepted: \(process.output.suffix(800))",
        sourceLocation: sourceLocation)
}

/// Runs `body` with `proxy` started and stopped around it.
func withProxy<T: Sendable>(_ proxy: ProxyCase, _ body: (ProxyProcess) async throws -> T) async throws -> T {
    let process = try await proxy.start()
    defer { process.stop() }
    return try await body(process)
}

@Suite("APNs client through real egress proxies (tinyproxy, danted)", .serialized)
struct APNSProxyTests {
    @Test("sends succeed through each proxy; the tunnel reaches the mock", arguments: ProxyCase.allCases)
    func sendsThroughProxy(_ proxy: ProxyCase) async throws {
        try await withProxy(proxy) { process in
            let proxySetting = try APNSProxy(url: process.url)
            try await withClient(configureClient: { $0.proxy = proxySetting }) { fixture in
                #expect(fixture.client.configuration.proxy != nil)
                let results = await sendAll(fixture.client, (0..<200).map { alert(token($0)) })
                #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
                #expect(fixture.server.counters().accepted == 200)
                #expect(fixture.events.count("opened") == 1)
                // The proxy logged the tunnel to the mock's port: the connection went through it.
                try await expectEveryConnectionTunnelled(process, fixture)
                #expect(process.tunnels(toPort: fixture.server.port) == 1)
            }
        }
    }

    @Test(
        "10 in flight through the proxy, short and 3 KB alerts: all 200 answered (a relay that splits TLS records must not stall the exchange)",
        arguments: [ProxyCase.tinyproxy, .dantedUsername])
    func fewInFlightThroughProxy(_ proxy: ProxyCase) async throws {
        try await withProxy(proxy) { process in
            let proxySetting = try APNSProxy(url: process.url)
            try await withClient(configureClient: { $0.proxy = proxySetting }) { fixture in
                let client = fixture.client
                let answered = await withTaskGroup(of: Int.self) { group in
                    for worker in 0..<10 {
                        group.addTask {
                            var accepted = 0
                            for index in 0..<20 {
                                let number = worker * 20 + index
                                let text = number % 2 == 0 ? "Woof" : String(repeating: "w", count: 3000)
                                if (try? await client.send(alert(token(number), body: text)))?.isAccepted == true { accepted += 1 }
                            }
                            return accepted
                        }
                    }
                    return await group.reduce(0, +)
                }
                #expect(answered == 200)
                #expect(fixture.server.counters().accepted == 200)
                #expect(fixture.events.count("opened") == 1)
                try await expectEveryConnectionTunnelled(process, fixture)
            }
        }
    }

    @Test("SNI and certificate verification are for the APNs host, never the proxy")
    func tlsIsForTheTarget() async throws {
        try await withProxy(.tinyproxy) { process in
            // The mock's certificate names only "localhost"; the proxy is 127.0.0.1. Verifying against the
            // proxy's address would fail, so success shows TLS ran end to end with the target's name.
            let fixture = try ClientFixture(configureServer: { configuration in
                let authority = try! TestCertificateAuthority()
                configuration.serverIdentity = try! authority.issueServerCertificate(hosts: ["localhost"]).identity()
                configuration.serverCAPEM = authority.certificatePEM
            })
            defer { fixture.server.stop() }
            var configuration = fixture.client.configuration
            configuration.environment = .custom(host: "localhost", port: fixture.server.port, isDevelopment: true)
            configuration.trustedCAPEM = fixture.server.credentials.caPEM
            configuration.proxy = try APNSProxy(url: process.url)
            let client = try APNSClient(configuration: configuration)
            #expect(try await client.send(alert()).isAccepted)
            try await process.waitForTunnels(count: 1, toPort: fixture.server.port)
            #expect(process.output.contains("CONNECT localhost:\(fixture.server.port) "), "the proxy was asked for the APNs name")
            await client.shutdown()
            await fixture.client.shutdown()
        }
    }

    @Test(
        "a wrong proxy password is a clear configuration error at once, not a retry loop",
        .timeLimit(.minutes(1)), arguments: [ProxyCase.tinyproxyBasicAuth, .dantedUsername])
    func wrongPassword(_ proxy: ProxyCase) async throws {
        try await withProxy(proxy) { process in
            let wrong = try #require(process.urlWithWrongPassword)
            let secret = String(wrong.split(separator: ":")[2].split(separator: "@")[0])
            let wrongProxy = try APNSProxy(url: wrong)
            try await withClient(configureClient: {
                $0.proxy = wrongProxy
                $0.requestTimeout = .seconds(60)
            }) { fixture in
                let started = ContinuousClock.now
                let results = await sendAll(fixture.client, (0..<50).map { alert(token($0)) })
                let errors = results.compactMap { result -> APNSTransportError? in
                    if case .failure(let error) = result { return error }
                    return nil
                }
                #expect(errors.count == 50)
                #expect(errors.allSatisfy { $0.kind == .proxyRefused }, "\(errors.first.map(String.init(describing:)) ?? "")")
                let message = try #require(errors.first?.message)
                #expect(
                    message.contains(proxy == .dantedUsername ? "rejected the user name or password" : "wrong proxy user or password"), "\(message)")
                #expect(!message.contains(secret), "the password must not appear in the error")
                // A later send fails fast with the same error while the back-off holds.
                await #expect(throws: APNSTransportError.self) { try await fixture.client.send(alert()) }
                #expect(ContinuousClock.now - started < .seconds(10))
                #expect(fixture.events.count("opened") == 0)
                #expect(fixture.events.count("closed") <= 2)
                #expect(fixture.server.counters().accepted == 0)
            }
        }
    }

    @Test("an authenticating proxy without credentials says that it needs them")
    func missingCredentials() async throws {
        try await withProxy(.tinyproxyBasicAuth) { process in
            let url = "http://127.0.0.1:\(process.port)"
            let bare = try APNSProxy(url: url)
            try await withClient(configureClient: { $0.proxy = bare }) { fixture in
                let error = await #expect(throws: APNSTransportError.self) { try await fixture.client.send(alert()) }
                #expect(error?.kind == .proxyRefused)
                #expect(error?.message.contains("needs credentials") == true, "\(String(describing: error))")
            }
        }
    }

    @Test("GOAWAY mid-burst through the proxy: nothing lost, nothing sent twice")
    func goAwayThroughProxy() async throws {
        try await withProxy(.tinyproxy) { process in
            let proxySetting = try APNSProxy(url: process.url)
            try await withClient(
                configureServer: { $0.goAwayAfterStreams = 700 },
                configureClient: { $0.proxy = proxySetting }
            ) { fixture in
                let results = await sendAll(fixture.client, (0..<3000).map { alert(token($0)) })
                #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
                let accepted = fixture.server.records().filter { $0.outcome.isAccepted }.map(\.token)
                #expect(accepted.count == 3000)
                #expect(Set(accepted).count == 3000)
                #expect(fixture.server.counters().goAwaysSent >= 4)
                #expect(fixture.events.count("opened") >= 5, "each GOAWAY led to a new tunnel")
                try await expectEveryConnectionTunnelled(process, fixture)
            }
        }
    }

    @Test("stream limits through the proxy: never more than the server allows, all answered", arguments: [ProxyCase.tinyproxy, .dantedUsername])
    func streamLimitThroughProxy(_ proxy: ProxyCase) async throws {
        try await withProxy(proxy) { process in
            let proxySetting = try APNSProxy(url: process.url)
            try await withClient(
                configureServer: {
                    $0.maxConcurrentStreams = 100
                    $0.latency = .fixed(.milliseconds(1))
                },
                configureClient: { $0.proxy = proxySetting }
            ) { fixture in
                let results = await sendAll(fixture.client, (0..<3000).map { alert(token($0)) })
                #expect(results.allSatisfy { (try? $0.get())?.isAccepted == true })
                #expect(fixture.server.maxObservedConcurrentStreams <= 100)
                try await expectEveryConnectionTunnelled(process, fixture)
            }
        }
    }
}
