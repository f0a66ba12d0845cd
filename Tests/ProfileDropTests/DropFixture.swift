import APNSCore
import Foundation
import JSON
import ProfileDrop
import PushStore
import PushStoreSQL
import TestSupport
import Testing

/// Where a fixture keeps its data. Tests that must hold on every store push-server can run on take
/// `arguments: DropStoreKind.allCases`; a new store is one more case here and one more branch in `make`.
enum DropStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite, postgres
    var testDescription: String { rawValue }

    /// Fresh, empty repositories of this kind, and the scratch space to remove afterwards (if any).
    func make() async throws -> (PushRepositories, ScratchDirectory?) {
        switch self {
        case .memory:
            return (.inMemory(), nil)
        case .sqlite:  // a database file in WAL mode, as push-server opens it
            let scratch = try ScratchDirectory()
            return (try .sqlite(path: scratch.path + "/push.sqlite"), scratch)
        case .postgres:  // a fresh database of the test process's throwaway cluster
            let url = try await PostgresTestCluster.shared().createDatabase()
            return (try await .postgres(url: url, poolSize: 4, clock: .caller), nil)
        }
    }
}

/// A temporary directory, removed when the last reference goes.
final class ScratchDirectory: Sendable {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("drop-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A `MatchService` over the repositories of one store kind, with users, devices and a manual clock.
struct DropFixture {
    let clock = ManualClock()
    let drops: any DropRepository
    let mateRequests: any MateRequestRepository
    let users: any UserRepository
    let devices: any DeviceRepository
    let outbox: any OutboxRepository
    let service: MatchService
    private let scratch: ScratchDirectory?
    static let topic = "com.example.sniffmeet"

    init(store: DropStoreKind = .memory, condition: DropCondition = .default) async throws {
        let repositories: PushRepositories
        (repositories, scratch) = try await store.make()
        drops = repositories.drops
        mateRequests = repositories.mateRequests
        users = repositories.users
        devices = repositories.devices
        outbox = repositories.outbox
        service = MatchService(repositories: repositories, condition: condition, clock: clock.closure)
    }

    /// A 64-hex-character token unique to (user, device).
    static func token(user: Int, device: Int) -> DeviceToken {
        let hex = String(user * 16 + device, radix: 16)
        return DeviceToken(stringLiteral: String(repeating: "0", count: 64 - hex.count) + hex)
    }

    static func card(_ id: String) -> ProfileCard {
        ProfileCard(name: "Owner \(id)", dogName: "Dog \(id)", breed: "Jindo", age: 3)
    }

    /// Stores user "u<n>" with a card and `deviceCount` active devices; returns the id.
    @discardableResult
    func addUser(_ number: Int, devices deviceCount: Int = 2) async throws -> String {
        let id = "u\(number)"
        _ = try await users.put(id: id, card: Self.card(id), now: clock.now)
        for device in 0..<deviceCount {
            _ = try await devices.register(
                token: Self.token(user: number, device: device), topic: Self.topic,
                userID: id, environment: "development", now: clock.now)
        }
        return id
    }

    /// Every queued outbox row (claims them, so call once, at the end).
    func queuedPushes() async throws -> [OutboxItem] {
        try await outbox.claim(limit: 1_000_000, now: clock.now.addingTimeInterval(3_600)).items
    }

    /// A close, straight-ahead report.
    func report(_ user: String, _ peer: String) async throws -> DropReport {
        try await service.report(userID: user, peerID: peer, distance: 0.1, direction: SIMD3(0, 0, -1))
    }
}

extension DropReport {
    /// The drop of a pending or matched report.
    var drop: DropRecord? {
        switch self {
        case .pending(let drop), .matched(let drop, _): return drop
        case .busy, .conditionNotMet: return nil
        }
    }

    var isMatched: Bool { if case .matched = self { return true } else { return false } }
    var isPending: Bool { if case .pending = self { return true } else { return false } }
    var isBusy: Bool { self == .busy }
}

extension OutboxItem {
    /// The parsed payload.
    var json: JSONValue { (try? JSONValue.parse(payload)) ?? .null }
    /// `aps.category`.
    var category: String? { json["aps"]?["category"]?.stringValue }
}
