import Foundation
import PostgresDriver
import ProfileDrop
import SQLiteDriver
import TestSupport
import Testing

@testable import PushStore
@testable import PushStoreSQL

@Suite("PostgreSQL connections, pool and errors")
struct PostgresConnectionTests {
    @Test func aURLLibpqCannotParseIsABadURL() async throws {
        await #expect {
            _ = try await PostgresDatabase.open(url: "not a url", poolSize: 1)
        } throws: { error in
            (error as? PostgresError)?.kind == .badURL
        }
    }

    @Test func aPortNobodyListensOnIsARefusedConnection() async throws {
        let socket = try LoopbackSocket(listening: false)  // bound, never listening: connections are refused
        defer { socket.close() }
        await #expect {
            _ = try await PostgresDatabase.open(url: "postgres://postgres@127.0.0.1:\(socket.port)/postgres", poolSize: 1)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .connectionRefused && error.description.contains("connection refused")
        }
    }

    @Test func aWrongPasswordAndAnUnknownDatabaseAreToldApart() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let user = PostgresTestCluster.passwordUser
        await #expect {
            _ = try await PostgresDatabase.open(url: cluster.url(database: "postgres", user: user, password: "wrong"), poolSize: 1)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .authenticationFailed && error.sqlState == "28P01" && !error.message.contains("wrong")
        }
        await #expect {
            _ = try await PostgresDatabase.open(url: cluster.url(database: "no_such_database"), poolSize: 1)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .unknownDatabase && error.sqlState == "3D000"
        }
        // The right password opens a database this ordinary role owns, and migrates it.
        let url = try await cluster.createDatabase(owner: user)
        let name = try #require(url.split(separator: "/").last.map(String.init))
        let database = try await PostgresDatabase.open(
            url: cluster.url(database: name, user: user, password: PostgresTestCluster.password), poolSize: 1)
        try await database.ping()
        #expect(try await database.schemaVersion() == PostgresSchema.migrations.count)
    }

    @Test func statementErrorsCarryTheSQLState() async throws {
        let database = try await PostgresDatabase.open(url: try await PostgresTestCluster.shared().createDatabase(), poolSize: 1, clock: .caller)
        await #expect {
            try await database.pool.withConnection { _ = try $0.query("SELECT * FROM no_such_table") }
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .statement && error.sqlState == "42P01" && error.function == "PQprepare"
        }
        // The connection is still good afterwards, with the wrapper's defaults (the URL may override them).
        try await database.ping()
        let name = try await database.pool.withConnection { db in try db.query("SELECT current_setting('application_name')")[0].string(at: 0) }
        #expect(name == "push-server")
    }

    @Test func serializationFailuresRunTheTransactionAgainABoundedNumberOfTimes() async throws {
        let database = try await PostgresDatabase.open(url: try await PostgresTestCluster.shared().createDatabase(), poolSize: 1, clock: .caller)
        let raise = "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$"
        // Fails twice, then commits: one call, three runs of the block.
        let runs = try await database.pool.withConnection { db in
            var runs = 0
            try db.transaction { db in
                runs += 1
                if runs < 3 { try db.execute(raise) }
                try db.execute("CREATE TABLE made_it (x integer)")
            }
            return runs
        }
        #expect(runs == 3)
        #expect(try await database.pool.withConnection { try $0.query("SELECT to_regclass('made_it') IS NOT NULL")[0].bool(at: 0) })
        // Always failing: gives up after the bound, with the SQLSTATE, and leaves no transaction open.
        await #expect {
            try await database.pool.withConnection { db in try db.transaction(attempts: 4) { db in try db.execute(raise) } }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "40001"
        }
        #expect(try await database.pool.withConnection { $0.inTransaction } == false)
    }

    @Test func enqueuesAnnounceOnlyWhatCommitted() async throws {
        let database = try await PostgresDatabase.open(url: try await PostgresTestCluster.shared().createDatabase(), poolSize: 1, clock: .caller)
        let channel = PostgresDatabase.outboxChannel
        let seen = try await database.pool.withConnection { db in
            // A statement that commits on its own announces at once.
            try PostgresOutboxRepository.insert([outboxItem("alone")], clock: .caller, db)
            var seen = [db.takeAnnouncements(), db.takeAnnouncements()]
            // Inside a transaction nothing is announced before the commit, and the commit announces once.
            try db.transaction { db in
                try PostgresOutboxRepository.insert([outboxItem("first")], clock: .caller, db)
                try PostgresOutboxRepository.insert([outboxItem("second")], clock: .caller, db)
                seen.append(db.takeAnnouncements())
            }
            seen.append(db.takeAnnouncements())
            // A transaction that rolls back announces nothing, and neither does an enqueue of no rows.
            struct Abandoned: Error {}
            _ = try? db.transaction { db in
                try PostgresOutboxRepository.insert([outboxItem("rolled-back")], clock: .caller, db)
                throw Abandoned()
            }
            try PostgresOutboxRepository.insert([], clock: .caller, db)
            seen.append(db.takeAnnouncements())
            return seen
        }
        #expect(seen == [[channel], [], [], [channel], []])
        let outbox = PostgresOutboxRepository(database: database)
        #expect(try await outbox.item(id: "rolled-back") == nil)
        #expect(try await outbox.item(id: "second") != nil)
    }

    @Test func concurrentEnqueuesAreAnnouncedByTheListener() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let a = try await PostgresDatabase.open(url: url, poolSize: 4, instanceID: "a", clock: .caller)
        let b = try await PostgresDatabase.open(url: url, poolSize: 1, instanceID: "b", clock: .caller)
        let seenByB = b.outboxGeneration
        let outbox = PostgresOutboxRepository(database: a)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<200 { group.addTask { try await outbox.enqueue([outboxItem("n\(n)")]) } }
            try await group.waitForAll()
        }
        // Every enqueue committed before it was announced; the other instance hears of them.
        #expect(try await awaitEvent("the other instance to hear of the enqueues") { await b.waitForOutbox(after: seenByB) } > seenByB)
        #expect(try await outbox.depth() == 200)
        // The listener sent them, in round trips of its own: none went out in an enqueue's transaction.
        #expect((1...200).contains(a.listener.notifiesSent))
    }

    @Test func aStoppedListenerWritesToNoDescriptor() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let listener = try await PostgresListener.start(conninfo: url, channels: [PostgresDatabase.outboxChannel])
        let seen = listener.generation(PostgresDatabase.outboxChannel)
        listener.stop()
        // The thread's last act is to wake every waiter, after it closed its pipes.
        _ = try await awaitEvent("the stopped listener to wake its waiters") {
            await listener.wait(on: PostgresDatabase.outboxChannel, after: seen)
        }
        // New descriptors take the lowest free numbers: among them those the listener's pipes and socket had.
        var pipes: [[Int32]] = []
        defer { for end in pipes.joined() { close(end) } }
        for _ in 0..<8 {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            #expect(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
            pipes.append(ends)
        }
        listener.announce([PostgresDatabase.outboxChannel])
        listener.stop()
        for ends in pipes {
            var byte: UInt8 = 0
            #expect(read(ends[0], &byte, 1) == -1 && errno == EAGAIN)
        }
        #expect(listener.notifiesSent == 0)
    }

    @Test func thePoolNeverOpensMoreConnectionsThanItsSize() async throws {
        let url = try await PostgresTestCluster.shared().createDatabase()
        let database = try await PostgresDatabase.open(url: url, poolSize: 2, clock: .caller)
        let pids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await database.pool.withConnection { db in
                        try db.query("SELECT pg_backend_pid()::bigint, pg_sleep(0.01)")[0].int64(at: 0)
                    }
                }
            }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(pids.count <= 2)
        // Closed (an instance shutting down): calls fail as unavailable instead of waiting.
        database.close()
        database.close()
        await #expect {
            try await database.ping()
        } throws: { error in
            guard case .unavailable(let why) = error as? PushStoreError else { return false }
            return why.contains("pool is closed")
        }
    }
}

@Suite("PostgreSQL connections that break")
struct PostgresBrokenConnectionTests {
    @Test func aBrokenConnectionFailsOnceThenThePoolAndTheListenerConnectAgain() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let url = try await cluster.createDatabase()
        let name = try #require(url.split(separator: "/").last.map(String.init))
        let database = try await PostgresDatabase.open(url: url, poolSize: 1, clock: .caller)
        try await database.ping()
        let seen = database.outboxGeneration
        // The server ends every session of the database (as a restart or a failover would) and waits until
        // they are gone.
        try await cluster.psql("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '\(name)'")
        await #expect {
            try await database.ping()
        } throws: { error in
            guard case .unavailable(let why) = error as? PushStoreError else { return false }
            return why.contains("connection lost")
        }
        try await database.ping()  // a new connection
        // The listener reconnected by itself, and says announcements may have been missed meanwhile.
        #expect(try await awaitEvent("the reconnected listener to report missed announcements") { await database.waitForOutbox(after: seen) } > seen)
        let after = database.outboxGeneration
        try await PostgresOutboxRepository(database: database).enqueue([outboxItem("after-the-break")])
        #expect(try await awaitEvent("the announcement of the enqueue after the break") { await database.waitForOutbox(after: after) } > after)
    }
}
