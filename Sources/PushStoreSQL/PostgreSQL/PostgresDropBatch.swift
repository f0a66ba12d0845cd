import Foundation
import PostgresDriver
import PushStore

/// The grouped operations of one transaction (`PostgresDatabase.runGroup`) decided together: what they are
/// decided on is read for all of them in the round trip that tries their locks (`readStatements`), each
/// operation's rules then run on that, as the operations before it in the group changed it (`View`), and
/// what they write goes out for all of them in one round trip of set-based statements (`write`).
///
/// A step the read does not answer (a cancel's latest match, a repeat's mate requests stored before the
/// group) makes its operation `Unbatchable`: it runs after the group's writes, under its own savepoint, on
/// what is then stored, as every operation did before. The writes check what they changed; one that finds
/// a drop closed, a user engaged or an id taken by another transaction meanwhile fails the whole round trip,
/// and the group's transaction rolls back: each of its operations then runs again under its own savepoint
/// (`PostgresDatabase.runGroup`), so that one that fails undoes only its own writes.
final class PostgresDropBatch {
    /// Thrown by a step of an operation that the group's read does not answer: the operation runs on its own.
    struct Unbatchable: Error {}

    /// The group's writes found what another transaction changed meanwhile (a drop no longer pending, an
    /// outbox id taken): all of them are undone with the transaction.
    struct Conflict: Error {}

    /// How far back the group reads each pair's latest match under the database's clock: a report's window
    /// reaches no further back (`DropCondition.window`, 10 s by default); one whose window does runs on its
    /// own. Under the caller's clock, whose times the database's does not bound, all the way back.
    static let lookbackMillis: Int64 = 3_600_000

    /// An unordered pair of users (a report's two).
    struct Pair: Hashable {
        let first: String
        let second: String

        init(_ one: String, _ other: String) { (first, second) = one < other ? (one, other) : (other, one) }
    }

    /// What the group read, as the operations decided so far changed it.
    struct View {
        /// The database's time read after the locks were granted: every operation of the group decides at it
        /// (under the database's clock).
        var now: Date
        /// The users whose pending drop was read, and the pending drop of those engaged, by user.
        var users: Set<String>
        var pending: [String: DropRecord]
        /// The pairs whose latest match since `now` less `matchLookback` was read, and those that have one.
        var pairs: Set<Pair>
        var latestMatch: [Pair: DropRecord]
        /// The users read with their active devices (those among `people` found), by id.
        var people: Set<String>
        var found: [String: UserRecord]
        var devices: [String: [DeviceRecord]]
        /// The mate requests of the drops matched in this group, by drop id.
        var requests: [String: [MateRequestRecord]] = [:]

        /// The earliest match time the read answers for, in ms (`readStatements`).
        var matchesSince: Int64
    }

    /// What the operations decided so far write, in the order it goes out.
    struct Writes {
        /// Drops that were pending before the group, in their new state (matched, cancelled or expired).
        var closed: [DropRecord] = []
        /// Drops new in this group, in their latest state (pending, or already matched or closed).
        var created: [DropRecord] = []
        /// Mate requests of the matches.
        var requests: [MateRequestRecord] = []
        /// Outbox rows of the matches' pushes.
        var items: [OutboxItem] = []

        var isEmpty: Bool { closed.isEmpty && created.isEmpty && requests.isEmpty && items.isEmpty }
    }

    /// The view and the writes: an operation works on a copy (`PostgresDropTransaction`), which becomes the
    /// group's only when its rules end without an error.
    struct Staged {
        var view: View
        var writes = Writes()
    }

    var staged: Staged
    /// Whose clock outbox rows are enqueued on.
    let clock: PostgresClock

    /// The group's read (`readStatements`' answers).
    init(read answers: ArraySlice<PostgresRows>, users: [String], pairs: [Pair], people: [String], clock: PostgresClock) {
        self.clock = clock
        var answers = answers
        let state = answers.removeFirst()
        let now = state[0].int64(at: Self.nowColumn)
        var view = View(
            now: Date(storeMillis: now), users: Set(users), pending: [:], pairs: Set(pairs), latestMatch: [:], people: Set(people),
            found: [:], devices: [:], matchesSince: clock == .database ? now - Self.lookbackMillis : Int64.min)
        for index in 0..<state.count {
            let row = state[index]
            guard row.optionalString(at: 0) != nil else { continue }
            let drop = DropRecord(row: row)
            if let user = row.optionalString(at: Self.userColumn) {
                view.pending[user] = drop
            } else {
                view.latestMatch[pairs[row.int(at: Self.pairColumn) - 1]] = drop
            }
        }
        if !people.isEmpty {
            let rows = answers.removeFirst()
            (view.found, view.devices) = PostgresUserRepository.collect(
                (0..<rows.count).map { PostgresUserRepository.userWithDevice(rows[$0]) })
        }
        staged = Staged(view: view)
    }

    // MARK: The group's read

    /// The statements that read what the group's operations are decided on, to follow the statement that
    /// takes their locks in its round trip: the pending drops of `users` and the latest match of each of
    /// `pairs`, with the time (`stateSQL`), then `people` with their active devices (none when empty).
    static func readStatements(
        users: [String], pairs: [Pair], people: [String], clock: PostgresClock
    ) -> [(sql: String, parameters: [PostgresValue])] {
        var statements: [(sql: String, parameters: [PostgresValue])] = [
            (
                stateSQL,
                [
                    .textArray(users), .textArray(pairs.map(\.first)), .textArray(pairs.map(\.second)),
                    .integer(clock == .database ? nil : Int64.min), .integer(lookbackMillis),
                ]
            )
        ]
        if !people.isEmpty { statements.append((peopleSQL, [.textArray(people)])) }
        return statements
    }

    /// The drop engaging each user in $1, followed by that user; then, for each pair ($2[n], $3[n]), its latest
    /// match at or after $4 (ms; when NULL, the time less $5 ms), followed by NULL and n; every row ends with the time (the
    /// database's, read after the locks), and a row of NULLs but the time stands for none. Each drop is
    /// found by key (the transaction joins by lookup), each side of a match by its index.
    static let stateSQL = """
        WITH t AS MATERIALIZED (SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint AS now)
        SELECT x.*, t.now FROM t LEFT JOIN LATERAL (
            SELECT \(PostgresDropTransaction.columns), e.user_id, NULL::bigint AS n
            FROM drop_engagements e JOIN drops d ON d.id = e.drop_id
            WHERE e.user_id = ANY ($1::text[])
            UNION ALL
            SELECT m.*, NULL, p.n FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS p (a, b, n)
            CROSS JOIN LATERAL (
                SELECT \(PostgresDropTransaction.columns) FROM (
                    (SELECT \(PostgresDropTransaction.columns) FROM drops
                    WHERE state = 'matched' AND initiator_id = p.a AND peer_id = p.b AND matched_at >= coalesce($4::bigint, t.now - $5::bigint)
                    ORDER BY matched_at DESC, id DESC LIMIT 1)
                    UNION ALL
                    (SELECT \(PostgresDropTransaction.columns) FROM drops
                    WHERE state = 'matched' AND initiator_id = p.b AND peer_id = p.a AND matched_at >= coalesce($4::bigint, t.now - $5::bigint)
                    ORDER BY matched_at DESC, id DESC LIMIT 1)
                ) m ORDER BY matched_at DESC, id DESC LIMIT 1
            ) m
        ) x ON true
        """

    /// Where `stateSQL` puts the engaged user, the pair's number and the time: after the drop's columns.
    private static let userColumn = DropColumn.end
    private static let pairColumn = DropColumn.end + 1
    private static let nowColumn = DropColumn.end + 2

    /// The users in $1 with their active devices, as `SQLUserRepository.users(ids:withDevicesIn:includeInvalidated:)`
    /// reads them.
    static let peopleSQL = UsersWithDevicesSQL.lookupsActive

    // MARK: The group's writes

    /// Sends the group's writes in one round trip, then checks what each changed; throws `Conflict` (or the
    /// database's error) when another transaction changed what the group read. `committing`: the
    /// transaction commits in the same round trip when nothing is left to check (only new drops, whose
    /// statement fails on a user engaged meanwhile or an id taken).
    func write(_ db: PostgresConnection, committing: Bool) throws {
        let writes = staged.writes
        guard !writes.isEmpty else { return }
        var statements: [(sql: String, parameters: [PostgresValue])] = []
        let matched = !writes.requests.isEmpty
        if matched { statements.append((WebhookQueue.subscribersSQL, [])) }
        if !writes.closed.isEmpty {
            let closed = writes.closed
            statements.append(
                (
                    Self.closeSQL,
                    [
                        .textArray(closed.map(\.id)), .textArray(closed.map(\.state.rawValue)),
                        .integerArray(closed.map { $0.matchedAt?.storeMillis }), .integerArray(closed.map { $0.closedAt?.storeMillis }),
                    ]
                ))
        }
        if !writes.created.isEmpty || matched {
            let created = writes.created
            statements.append(
                (
                    Self.insertSQL,
                    [
                        .textArray(created.map(\.id)), .textArray(created.map(\.initiatorID)), .textArray(created.map(\.peerID)),
                        .textArray(created.map(\.state.rawValue)), .integerArray(created.map { $0.createdAt.storeMillis }),
                        .integerArray(created.map { $0.expiresAt.storeMillis }), .integerArray(created.map { $0.matchedAt?.storeMillis }),
                        .integerArray(created.map { $0.closedAt?.storeMillis }),
                    ] + PostgresDropTransaction.requestArrays(writes.requests)
                ))
        }
        let chunks = stride(from: 0, to: writes.items.count, by: PostgresOutboxRepository.insertChunk).map {
            Array(writes.items[$0..<min($0 + PostgresOutboxRepository.insertChunk, writes.items.count)])
        }
        for chunk in chunks { statements.append(PostgresOutboxRepository.insertStatement(chunk, clock: clock)) }
        let checked = writes.closed.isEmpty && chunks.isEmpty && !matched
        var answers = try db.queries(statements, committing: committing && checked)[...]
        var subscribers = WebhookSubscribers([])
        if matched {
            let rows = answers.removeFirst()
            subscribers = WebhookSubscribers(
                (0..<rows.count).map { (id: rows[$0].string(at: 0), events: WebhookEndpoint.events(stored: rows[$0].string(at: 1))) })
        }
        if !writes.closed.isEmpty {
            guard answers.removeFirst()[0].int64(at: 0) == writes.closed.count else { throw Conflict() }
        }
        if !writes.created.isEmpty || matched { answers.removeFirst() }
        for chunk in chunks { try PostgresOutboxRepository.checkInserted(chunk, answers.removeFirst(), db) }
        if !subscribers.isEmpty {
            try WebhookQueue.record(
                writes.requests.map { WebhookEvents.mateRequest($0, type: .mateRequestCreated) }, subscribers: subscribers,
                PostgresSession(connection: db))
        }
        if !chunks.isEmpty { db.announce(PostgresDatabase.outboxChannel) }
    }

    /// The drops in $1 that are still pending, each given its new state ($2), match time ($3) and close time
    /// ($4), their users freed; returns how many it changed. In id order, so that two transactions closing
    /// the same drops wait for each other in one order.
    static let closeSQL = """
        WITH c AS (
            UPDATE drops d SET state = x.state, matched_at = x.matched_at, closed_at = x.closed_at
            FROM (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS x (id, state, matched_at, closed_at)
                ORDER BY id) x
            WHERE d.id = x.id AND d.state = 'pending'
            RETURNING d.id
        ), freed AS (
            DELETE FROM drop_engagements WHERE drop_id IN (SELECT id FROM c)
        )
        SELECT count(*) FROM c
        """

    /// The new drops given as arrays ($1 … $8, in `DropColumn`'s order) with the engagements of those pending
    /// (in user-id order, so that two transactions engaging the same users wait for each other in one order),
    /// and the mate requests given as arrays ($9 … $15, in `MateRequestColumn`'s order). A user engaged, or an
    /// id taken, meanwhile fails it on the key; a request whose drop is unknown, on its foreign key.
    static let insertSQL = """
        WITH d AS (
            INSERT INTO drops (\(PostgresDropTransaction.columns))
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
            RETURNING id, initiator_id, peer_id, state
        ), e AS (
            INSERT INTO drop_engagements (user_id, drop_id)
            SELECT u.user_id, d.id FROM d CROSS JOIN LATERAL (VALUES (d.initiator_id), (d.peer_id)) AS u (user_id)
            WHERE d.state = 'pending' ORDER BY u.user_id
        ), r AS (
            INSERT INTO mate_requests (\(MateRequestColumn.selectList))
            SELECT * FROM unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::bigint[])
        )
        SELECT 1
        """
}
