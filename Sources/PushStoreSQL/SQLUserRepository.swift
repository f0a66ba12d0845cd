import APNSCore
import Foundation
import PushStore

/// `UserRepository` on either SQL database: the `users` table.
struct SQLUserRepository<Database: SQLDatabase>: UserRepository {
    /// The database holding the table.
    let database: Database

    /// The columns of `users`, in SELECT order.
    enum Column: Int32, StoreColumn {
        case id, card, createdAt, updatedAt
    }

    private static func record(_ row: some StoreRow) -> UserRecord {
        UserRecord(
            id: row.string(Column.id), cardJSON: row.string(Column.card),
            createdAt: row.date(Column.createdAt), updatedAt: row.date(Column.updatedAt))
    }

    /// See `UserRepository.put(id:cardJSON:now:)`: one upsert that gives back the stored row
    /// (`SQLSession.upsert`).
    func put(id: String, cardJSON json: String, now: Date) async throws -> UserRecord {
        try StoreValidation.userID(id)
        return try await database.onConnection { db in
            let stored = try db.upsert(
                """
                INSERT INTO users (id, card, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
                ON CONFLICT (id) DO UPDATE SET card = excluded.card, updated_at = excluded.updated_at
                """, [.text(id), .text(json), .date(now)], returning: Column.selectList, row: Self.record,
                reread: { try Self.user(id: id, db) })
            guard let stored else { throw PushStoreError.notFound("user \(id)") }
            return stored
        }
    }

    /// See `UserRepository.user(id:)`.
    func user(id: String) async throws -> UserRecord? {
        try await database.onConnection { try Self.user(id: id, $0) }
    }

    /// See `UserRepository.users(ids:)`: one read for all of them (`SQLDatabase.groupedRead`): on
    /// PostgreSQL one statement, on SQLite one statement an id, grouped with the reads around it.
    func users(ids: [String]) async throws -> [String: UserRecord] {
        let ids = Array(Set(ids))
        return try await database.groupedRead { db in
            let rows = try db.query(
                { "SELECT \(Column.selectList) FROM users WHERE id \($0)" }, [], inList: ids, chunk: 1, row: Self.record)
            return Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// See `UserRepository.users(ids:withDevicesIn:includeInvalidated:)`: with the devices of the same
    /// database, one statement (each user joined with their devices) in one read (`SQLDatabase.groupedRead`);
    /// other devices are read on their own.
    func users(
        ids: [String], withDevicesIn devices: any DeviceRepository, includeInvalidated: Bool
    ) async throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]]) {
        guard let same = devices as? SQLDeviceRepository<Database>, same.database as AnyObject === database as AnyObject else {
            let found = try await users(ids: ids)
            guard !found.isEmpty else { return (found, [:]) }
            return (found, try await devices.devices(forUsers: Array(found.keys), includeInvalidated: includeInvalidated))
        }
        return try await database.groupedRead { db in
            try Self.users(ids: ids, withDevicesIncludingInvalidated: includeInvalidated, db)
        }
    }

    /// The users among `ids` with their devices, read through `db` (one statement; on PostgreSQL by lookups
    /// whatever the statistics, `UsersWithDevicesSQL.lookups`; on SQLite, for one or two users, one index
    /// search each, sorted here): see `UserRepository.users(ids:withDevicesIn:includeInvalidated:)`.
    static func users(
        ids: [String], withDevicesIncludingInvalidated includeInvalidated: Bool, _ db: some SQLSession
    ) throws -> (users: [String: UserRecord], devices: [String: [DeviceRecord]]) {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return ([:], [:]) }
        switch db.dialect {
        case .postgres:
            let sql = includeInvalidated ? UsersWithDevicesSQL.lookupsAll : UsersWithDevicesSQL.lookupsActive
            return collect(try db.query(sql, [.textArray(ids)], row: { userWithDevice($0) }))
        case .sqlite:
            let sql = includeInvalidated ? UsersWithDevicesSQL.all : UsersWithDevicesSQL.active
            let pair = includeInvalidated ? UsersWithDevicesSQL.pairAll : UsersWithDevicesSQL.pairActive
            return collect(try Self.rows(ids: ids, sql: sql, pair: pair, db))
        }
    }

    /// The users of `rows` (a user with each of their devices, or with none) by id, with their devices in
    /// registration order (then by token and topic).
    static func collect(_ rows: [(UserRecord, DeviceRecord?)]) -> (users: [String: UserRecord], devices: [String: [DeviceRecord]]) {
        var users: [String: UserRecord] = [:]
        var found: [String: [DeviceRecord]] = [:]
        for (user, device) in rows {
            users[user.id] = user
            found[user.id, default: []] += device.map { [$0] } ?? []
        }
        for (user, devices) in found where devices.count > 1 {
            found[user] = devices.sorted { ($0.registeredAt, $0.token.hex, $0.topic) < ($1.registeredAt, $1.token.hex, $1.topic) }
        }
        return (users, found)
    }

    private static func rows<Session: SQLSession>(
        ids: [String], sql: @Sendable (String) -> String, pair: String, _ db: Session
    ) throws -> [(UserRecord, DeviceRecord?)] {
        let row = { (row: Session.Row) in userWithDevice(row) }
        // A profile-drop report's two users: one index search each (`pair`), sorted by the caller.
        guard ids.count <= 2 else { return try db.query(sql, [], inList: ids, row: row) }
        return try db.query(pair, [.text(ids[0]), .text(ids[ids.count - 1])], row: row)
    }

    /// A row of `UsersWithDevicesSQL`: the user, with the device (none when its columns are NULL).
    static func userWithDevice(_ row: some StoreRow) -> (UserRecord, DeviceRecord?) {
        (record(row, at: DeviceColumn.end), row.optionalString(at: 0) == nil ? nil : DeviceRecord(row: row))
    }

    /// The user in the columns of `Column` starting at `offset`.
    private static func record(_ row: some StoreRow, at offset: Int32) -> UserRecord {
        UserRecord(
            id: row.string(at: offset + Column.id.rawValue), cardJSON: row.string(at: offset + Column.card.rawValue),
            createdAt: Date(storeMillis: row.int64(at: offset + Column.createdAt.rawValue)),
            updatedAt: Date(storeMillis: row.int64(at: offset + Column.updatedAt.rawValue)))
    }

    private static func user(id: String, _ db: some SQLSession) throws -> UserRecord? {
        try db.row(of: "users", id: id, columns: Column.selectList, record)
    }
}

/// The users of a SQLite database.
typealias SQLiteUserRepository = SQLUserRepository<SQLiteDatabase>
/// The users of a PostgreSQL database.
typealias PostgresUserRepository = SQLUserRepository<PostgresDatabase>

/// The statements of `SQLUserRepository.users(ids:withDevicesIn:includeInvalidated:)`, built once.
enum UsersWithDevicesSQL {
    /// Users (`u`, `WHERE u.id` and the match the list is given) each with their devices, one row a device
    /// (`DeviceColumn.selectList`, all NULL for a user without one) followed by the user's columns.
    static func withDevices(_ filter: String) -> @Sendable (String) -> String {
        let head = """
            SELECT \(DeviceColumn.selectList), u.id, u.card, u.created_at, u.updated_at
            FROM users u LEFT JOIN devices ON devices.user_id = u.id\(filter)
            WHERE u.id\u{20}
            """
        return { match in head + match + " ORDER BY u.id, registered_at, token, topic" }
    }

    static let all = withDevices("")
    static let active = withDevices(" AND devices.invalidated_at IS NULL")

    /// The users ?1 and ?2 (the same id twice for one), each with their devices as `withDevices` gives
    /// them, in no particular order: two index searches. `IN (?1, ?2)` and the ORDER BY made SQLite build
    /// and drop a temporary b-tree and a sorter for every profile-drop report.
    static func pair(_ filter: String) -> String {
        let part = { (parameter: String) in
            """
            SELECT \(DeviceColumn.selectList), u.id, u.card, u.created_at, u.updated_at
            FROM users u LEFT JOIN devices ON devices.user_id = u.id\(filter)
            WHERE u.id = \(parameter)
            """
        }
        return part("?1") + " UNION ALL " + part("?2") + " AND ?2 <> ?1"
    }

    static let pairAll = pair("")
    static let pairActive = pair(" AND devices.invalidated_at IS NULL")

    /// PostgreSQL: the users of the array $1 (no id twice), each with their devices as `withDevices` gives
    /// them, in no particular order, by one primary-key lookup per user and one `devices_by_user` search per
    /// found user whatever the tables' statistics say. With `users` and `devices` freshly filled and not yet
    /// analyzed, the planner took `invalidated_at IS NULL` for rare and read the whole of `devices` for
    /// each user of each profile-drop group (hash joins are off there, `joinByLookup`): 100–150 ms a group,
    /// with every group doing it at once. `OFFSET 0` keeps each lateral subquery from being merged into a
    /// join planned by the same misleading estimates.
    static func lookups(_ filter: String) -> String {
        """
        SELECT \(DeviceColumn.selectList), u.id, u.card, u.created_at, u.updated_at
        FROM unnest($1::text[]) AS k(id)
        CROSS JOIN LATERAL (SELECT id, card, created_at, updated_at FROM users WHERE users.id = k.id OFFSET 0) u
        LEFT JOIN LATERAL (
            SELECT \(DeviceColumn.selectList) FROM devices WHERE devices.user_id = u.id\(filter) OFFSET 0
        ) devices ON true
        """
    }

    static let lookupsAll = lookups("")
    static let lookupsActive = lookups(" AND devices.invalidated_at IS NULL")
}
