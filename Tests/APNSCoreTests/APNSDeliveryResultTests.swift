import APNSCore
import Foundation
import Testing

@Suite("One delivery result per notification")
struct APNSDeliveryResultTests {
    static let rejection = APNSRejection(
        status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_790_000_000.5), apnsID: "0a1b2c3d-0000-4000-8000-000000000001")
    static let all: [APNSDeliveryResult] = [
        .accepted(apnsID: "0a1b2c3d-0000-4000-8000-000000000002", uniqueID: "0a1b2c3d-0000-4000-8000-000000000003"),
        .accepted(apnsID: "0a1b2c3d-0000-4000-8000-000000000004", uniqueID: nil),
        .rejected(rejection),
        .failed(APNSTransportError(.notSent, "never written")),
        .failed(APNSTransportError(.outcomeUnknown, "reset")),
        .failed(APNSTransportError(.timeout, "no answer")),
    ]

    @Test("the Result shape of a batch result and the delivery result carry the same thing both ways")
    func resultShapeRoundTrips() {
        for delivery in Self.all {
            #expect(APNSDeliveryResult(delivery.result) == delivery, "\(delivery)")
            var batch = APNSBatchResult(index: 7, delivery: delivery)
            #expect(APNSBatchResult(index: 7, result: batch.result).delivery == delivery)
            batch.result = .failure(APNSTransportError(.shutdown, "closing"))
            #expect(batch.delivery == .failed(APNSTransportError(.shutdown, "closing")) && batch.index == 7)
        }
    }

    @Test("an answer is an outcome with its status; no answer has neither")
    func outcomesAndStatuses() throws {
        #expect(Self.all.map(\.status) == [200, 200, 410, nil, nil, nil])
        #expect(Self.all.map(\.isAccepted) == [true, true, false, false, false, false])
        let accepted = try #require(Self.all[0].outcome)
        #expect(accepted == .accepted(apnsID: "0a1b2c3d-0000-4000-8000-000000000002", uniqueID: "0a1b2c3d-0000-4000-8000-000000000003"))
        #expect(APNSDeliveryResult(accepted) == Self.all[0])
        #expect(Self.all[2].rejection == Self.rejection && Self.all[2].rejection?.timestamp == Self.rejection.timestamp)
        #expect(Self.all[4].transportError?.kind == .outcomeUnknown && Self.all[4].outcome == nil)
        #expect(Self.all[3].description == "failed notSent: never written")
        #expect(Self.all[2].description == "rejected 410 Unregistered (timestamp 1790000000500)")
    }
}
