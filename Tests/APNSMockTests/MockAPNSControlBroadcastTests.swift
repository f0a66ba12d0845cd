import APNSCore
import APNSMock
import Foundation
import JSON
import PushHTTP
import PushHTTP2
import Testing

@Suite("Mock control API: broadcasts in the records, filtered by channel, channels gone after reset")
struct MockAPNSControlBroadcastTests {
    @Test("a broadcast is a record with its channel; ?channel_id= selects one channel's broadcasts")
    func broadcastRecords() async throws {
        try await withControl { fixture, control in
            let first = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)).id
            let second = try #require(fixture.server.createChannel(bundleID: bundleID, storagePolicy: .mostRecentMessageStored)).id
            let connection = try fixture.connection()
            for channel in [first, second, first] {
                let request = HTTP2Request(
                    authority: "127.0.0.1", path: APNSHeader.broadcastPathPrefix + bundleID,
                    headers: [
                        (APNSHeader.channelID, channel.rawValue), (APNSHeader.pushType, "liveactivity"),
                        (APNSHeader.priority, "5"), (APNSHeader.expiration, "0"),
                    ],
                    body: Array(#"{"aps":{"timestamp":1685952000,"event":"update","content-state":{}}}"#.utf8))
                let response = try await respond(connection, request)
                #expect(response.status == 200)
                #expect(response.header(APNSHeader.requestID).map { APNSID.isValid($0) } == true)
                #expect(response.header(APNSHeader.id) == nil)
            }
            let onFirst = try await control.send(
                "GET", "/records?channel_id=" + first.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            let records = onFirst.json?["records"]?.arrayValue ?? []
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0["channel_id"]?.stringValue == first.rawValue && $0["topic"]?.stringValue == bundleID })
            #expect(try await control.records().count == 3)

            #expect(try await control.send("POST", "/reset").status == 204)
            #expect(fixture.server.channels(bundleID: bundleID).isEmpty)
        }
    }
}
