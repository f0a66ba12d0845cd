internal import CLibPQ

/// The statement path of a connection: prepared statements with their parameters, one at a time or
/// several in one round trip (a pipeline), with the fixed statements that ride along with them.
extension PostgresConnection {
    /// Runs `sql` with `parameters` ($1, $2, …) as a prepared statement; returns its rows (binary format).
    /// With `committing`, the last statement of a `transaction` block: the block commits in the same round
    /// trip (a failed statement commits nothing, and the block rolls back).
    @discardableResult
    package func query(_ sql: String, _ parameters: [PostgresValue] = [], committing: Bool = false) throws(PostgresError) -> PostgresRows {
        try queries([(sql, parameters)], committing: committing)[0]
    }

    /// Runs `statements` (each SQL with its parameters, as prepared statements) one after the other in one
    /// round trip (a pipeline), after the fixed statements waiting to go with the next one (`executeWithNext`,
    /// the open transaction's `BEGIN`); returns each one's rows. Each statement starts once the one before
    /// it ended, so a statement after one that waited for a lock reads what was committed meanwhile. The
    /// first failure is thrown, and the server skips what follows it. With `committing`, the last of a
    /// `transaction` block's statements: the block commits in the same round trip (a failed statement commits
    /// nothing, and the block rolls back).
    package func queries(
        _ statements: [(sql: String, parameters: [PostgresValue])], committing: Bool = false
    ) throws(PostgresError) -> [PostgresRows] {
        checkThread()
        precondition(!statements.isEmpty)
        let names = try statements.map { (statement) throws(PostgresError) -> String in try statementName(statement.sql) }
        let results: [OpaquePointer?]
        if pending.isEmpty && !committing && statements.count == 1 {
            traffic?.record(statements: 1)
            results = [Self.withWire(statements[0].parameters, traffic) { PQexecPrepared(handle, names[0], $0, $1, $2, $3, 1) }]
        } else {
            let before = pending
            pending.removeAll()
            let sends = zip(names, statements).map { [traffic] name, statement in
                { (handle: OpaquePointer) -> Int32 in
                    Self.withWire(statement.parameters, traffic) { PQsendQueryPrepared(handle, name, $0, $1, $2, $3, 1) }
                }
            }
            results = try pipelined(before, sends, after: committing ? ["COMMIT"] : [])
        }
        var rows: [PostgresRows] = []
        rows.reserveCapacity(results.count)
        for (index, result) in results.enumerated() {
            let checked: PostgresRows?
            do {
                checked = try check(result, "PQexecPrepared")
            } catch {
                for later in results[(index + 1)...] { PQclear(later) }
                throw error
            }
            guard let checked else {
                for later in results[(index + 1)...] { PQclear(later) }
                throw PostgresError(kind: .statement, function: "PQexecPrepared", message: "no result")
            }
            rows.append(checked)
        }
        return rows
    }

    /// Calls `body` with `parameters` as libpq takes them: their count, values, lengths and formats. One
    /// buffer holds every value; the pointer array points into it. Their bytes are counted in `traffic`.
    private static func withWire<R>(
        _ parameters: [PostgresValue], _ traffic: PostgresTraffic?,
        _ body: (Int32, [UnsafePointer<CChar>?], UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>) -> R
    ) -> R {
        let wire = parameters.map(\.wire)
        var lengths: [Int32] = wire.map { Int32($0.bytes?.count ?? 0) }
        var formats: [Int32] = wire.map(\.format)
        let total = wire.reduce(0) { $0 + ($1.bytes?.count ?? 0) }
        traffic?.record(parameterBytes: total)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 1)
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(wire.count)
        var offset = 0
        for value in wire {
            guard let bytes = value.bytes else {
                pointers.append(nil)
                continue
            }
            let start = buffer.baseAddress! + offset
            bytes.withUnsafeBytes { if let base = $0.baseAddress { start.copyMemory(from: base, byteCount: $0.count) } }
            pointers.append(UnsafePointer(start.assumingMemoryBound(to: CChar.self)))
            offset += bytes.count
        }
        return lengths.withUnsafeMutableBufferPointer { lengths in
            formats.withUnsafeMutableBufferPointer { formats in
                body(Int32(wire.count), pointers, lengths.baseAddress!, formats.baseAddress!)
            }
        }
    }

    /// Runs `sql` with `parameters`; returns the number of rows it changed.
    @discardableResult
    package func run(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> Int {
        try query(sql, parameters).affectedRows
    }

    /// Sends `before` (statements without parameters), the statements `sends` queue and `after`, as one
    /// pipeline (one round trip), and returns the results of `sends`, to be checked and cleared by the
    /// caller; throws the first error of `before` or `after` that comes before any of theirs (the server
    /// skips what follows a failed statement).
    private func pipelined(
        _ before: [String], _ sends: [(OpaquePointer) -> Int32], after: [String]
    ) throws(PostgresError) -> [OpaquePointer?] {
        guard PQenterPipelineMode(handle) == 1 else { throw failure("PQenterPipelineMode") }
        let total = before.count + sends.count + after.count
        traffic?.record(statements: total)
        var sent = 0
        for index in 0..<total {
            let queued: Int32
            switch index - before.count {
            case ..<0: queued = PQsendQueryParams(handle, before[index], 0, nil, nil, nil, nil, 1)
            case let send where send < sends.count: queued = sends[send](handle)
            default: queued = PQsendQueryParams(handle, after[index - before.count - sends.count], 0, nil, nil, nil, nil, 1)
            }
            guard queued == 1 else { break }
            sent += 1
        }
        let synced = PQpipelineSync(handle) == 1
        // One result per statement sent, each followed by a null; then the sync point.
        var results: [OpaquePointer?] = []
        for _ in 0..<sent {
            results.append(PQgetResult(handle))
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        if synced, let sync = PQgetResult(handle) { PQclear(sync) }
        while PQexitPipelineMode(handle) != 1, isUsable, let extra = PQgetResult(handle) { PQclear(extra) }
        guard results.count == total else {
            for result in results { PQclear(result) }
            throw failure("PQsendQueryPrepared")
        }
        let main = Array(results[before.count..<(before.count + sends.count)])
        let mainFailed = main.contains { PQresultStatus($0) != PGRES_TUPLES_OK && PQresultStatus($0) != PGRES_COMMAND_OK }
        var firstError: PostgresError?
        for (index, result) in results.enumerated() where index < before.count || index >= before.count + sends.count {
            do {
                _ = try check(result, "PQexec")
            } catch {
                // A failure before the statements comes first; after them, their own error does.
                if firstError == nil && (index < before.count || !mainFailed) { firstError = error }
            }
        }
        if let firstError {
            for result in main { PQclear(result) }
            throw firstError
        }
        return main
    }

    /// The error libpq reports for the connection after `function` failed.
    private func failure(_ function: String) -> PostgresError {
        PostgresError(kind: isUsable ? .statement : .connectionLost, function: function, message: String(cString: PQerrorMessage(handle)))
    }

    /// The name of the prepared statement for `sql`, preparing it on first use.
    private func statementName(_ sql: String) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "push_\(prepared.count + 1)"
        traffic?.record(statements: 0)
        _ = try check(PQprepare(handle, name, sql, 0, nil), "PQprepare")
        prepared[sql] = name
        return name
    }
}
