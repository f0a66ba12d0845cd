import APNSCore
import APNSMock
import PushStore

extension ChaosRun {
    /// Compares every outbox row with the mock's records: rows of acknowledged pushes and rows of posts
    /// whose answer was cut off are counted apart (by push id and by token), each row must be final and
    /// match what the mock did with its `apns-id`, for the same token and topic.
    /// Counts the notifications accepted more than once whose acceptances do not share one collapse id: a
    /// copy without one, or with another, shows on the device beside the first.
    static func collapseCheck(_ report: inout ChaosReport, accepted: [String: [MockAPNSRecord]]) {
        report.duplicatesWithoutSharedCollapseID = 0
        report.collapseExamples = []
        for (apnsID, acceptances) in accepted.sorted(by: { $0.key < $1.key }) where acceptances.count > 1 {
            let first = acceptances[0].collapseID
            guard first == nil || acceptances.contains(where: { $0.collapseID != first }) else { continue }
            report.duplicatesWithoutSharedCollapseID += 1
            if report.collapseExamples.count < 5 {
                report.collapseExamples.append("\(apnsID): " + acceptances.map { $0.collapseID ?? "-" }.joined(separator: ", "))
            }
        }
    }

    static func reconcile(
        _ report: inout ChaosReport, load: ChaosLoad.Outcome, mock: MockAPNSServer,
        batchSize: Int, rows: [OutboxItem]
    ) {
        let records = mock.records()
        var accepted: [String: [MockAPNSRecord]] = [:]
        var rejection: [String: String] = [:]
        for record in records {
            if record.isAccepted {
                accepted[record.apnsID, default: []].append(record)
            } else if let reason = record.rejection?.reason {
                rejection[record.apnsID] = reason.rawValue
            }
        }
        let counters = mock.counters()
        report.delivered = accepted.count
        report.duplicates = accepted.values.reduce(0) { $0 + $1.count - 1 }
        collapseCheck(&report, accepted: accepted)
        report.goAways = counters.goAwaysSent
        report.abruptCloses = counters.aborts
        report.streams = counters.streams
        report.rejections = Dictionary(uniqueKeysWithValues: counters.rejectedByReason.map { ($0.key.rawValue, $0.value) })

        report.outboxStates = Dictionary(rows.map { ($0.state.rawValue, 1) }, uniquingKeysWith: +)
        report.outboxRows = rows.count

        let acknowledgedPushes = Set(load.pushIDs)
        var acknowledgedRows = 0
        var acceptedIDs = Set<String>()
        for row in rows {
            let acknowledged = acknowledgedPushes.contains(row.pushID)
            if acknowledged {
                acknowledgedRows += 1
            } else if load.unansweredTokens.contains(row.target.deviceToken?.hex ?? "") {
                report.storedWithoutAnswer += 1
            } else {
                report.unaccountedRows += 1
                report.note("row \(row.id) (push \(row.pushID)) belongs to no post of this run")
                continue
            }
            let acceptances = row.apnsID.flatMap { accepted[$0.rawValue] } ?? []
            if acceptances.contains(where: { $0.token != row.target.deviceToken?.hex || $0.topic != row.topic }) {
                report.disagree("row \(row.id): the mock accepted its apns-id for another token or topic")
            }
            let deliveredByMock = !acceptances.isEmpty
            switch row.state {
            case .accepted:
                if let id = row.apnsID { acceptedIDs.insert(id.rawValue) }
                if !deliveredByMock { report.disagree("row \(row.id) is accepted but the mock never accepted it") }
            case .rejected:
                if deliveredByMock || rejection[row.apnsID?.rawValue ?? ""] != row.lastReason?.rawValue {
                    report.disagree("row \(row.id) is rejected (\(row.lastReason?.rawValue ?? "-")) but the mock recorded otherwise")
                }
            default:
                if deliveredByMock { report.disagree("row \(row.id) is \(row.state.rawValue) but the mock accepted it") }
            }
            guard !deliveredByMock else { continue }
            if acknowledged {
                report.lost += 1
                report.note("acknowledged row \(row.id) (\(row.state.rawValue), \(row.lastReason?.rawValue ?? "-")) never reached the mock")
            } else {
                report.disagree("row \(row.id) of a cut-off post (\(row.state.rawValue)) never reached the mock")
            }
        }
        if acknowledgedRows != load.acknowledged {
            report.lost += max(0, load.acknowledged - acknowledgedRows)
            report.disagree("\(load.acknowledged) notifications acknowledged but \(acknowledgedRows) rows found for their pushes")
        }
        // A post is stored whole or not at all, so rows of cut-off posts come in whole batches.
        if report.storedWithoutAnswer % max(1, batchSize) != 0 {
            report.disagree("\(report.storedWithoutAnswer) rows of cut-off posts is not a whole number of posts")
        }
        let strays = accepted.keys.filter { !acceptedIDs.contains($0) }
        if !strays.isEmpty {
            report.disagree("the mock accepted \(strays.count) apns-ids the outbox does not hold as accepted, e.g. \(strays[0])")
        }
    }
}
