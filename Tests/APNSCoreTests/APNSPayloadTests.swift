import APNSCore
import JSON
import Testing

@Suite("APNSPayload")
struct APNSPayloadTests {
    static func text(_ payload: APNSPayload) -> String {
        String(decoding: payload.encoded(), as: UTF8.self)
    }

    @Test(
        "each aps key, byte for byte",
        arguments: [
            (APNSPayload(), #"{"aps":{}}"#),
            (.alert("Hi"), #"{"aps":{"alert":"Hi"}}"#),
            (APNSPayload(badge: 0), #"{"aps":{"badge":0}}"#),
            (APNSPayload(sound: .default), #"{"aps":{"sound":"default"}}"#),
            (
                APNSPayload(sound: .critical(name: "alarm.caf", volume: 0.5)),
                #"{"aps":{"sound":{"critical":1,"name":"alarm.caf","volume":0.5}}}"#
            ),
            (APNSPayload(contentAvailable: true), #"{"aps":{"content-available":1}}"#),
            (APNSPayload(mutableContent: true), #"{"aps":{"mutable-content":1}}"#),
            (APNSPayload(category: "MATE_REQUEST"), #"{"aps":{"category":"MATE_REQUEST"}}"#),
            (APNSPayload(threadID: "t1"), #"{"aps":{"thread-id":"t1"}}"#),
            (APNSPayload(targetContentID: "w"), #"{"aps":{"target-content-id":"w"}}"#),
            (APNSPayload(interruptionLevel: .passive), #"{"aps":{"interruption-level":"passive"}}"#),
            (APNSPayload(interruptionLevel: .active), #"{"aps":{"interruption-level":"active"}}"#),
            (APNSPayload(interruptionLevel: .timeSensitive), #"{"aps":{"interruption-level":"time-sensitive"}}"#),
            (APNSPayload(interruptionLevel: .critical), #"{"aps":{"interruption-level":"critical"}}"#),
            (APNSPayload(relevanceScore: 0.75), #"{"aps":{"relevance-score":0.75}}"#),
            (APNSPayload(relevanceScore: 1), #"{"aps":{"relevance-score":1.0}}"#),
            (APNSPayload(filterCriteria: "work"), #"{"aps":{"filter-criteria":"work"}}"#),
            (APNSPayload(contentChanged: true), #"{"aps":{"content-changed":true}}"#),
            (.background(custom: ["id": 7]), #"{"aps":{"content-available":1},"id":7}"#),
        ] as [(APNSPayload, String)])
    func keys(payload: APNSPayload, expected: String) {
        #expect(Self.text(payload) == expected)
        #expect(payload.byteCount == expected.utf8.count)
    }

    @Test("the alert dictionary with every key, sorted")
    func alertDictionary() {
        let alert = APNSPayload.AlertContent(
            title: "T", subtitle: "S", body: "B", launchImage: "L.png",
            titleLocKey: "TK", titleLocArgs: ["ta"], subtitleLocKey: "SK", subtitleLocArgs: ["sa", "sb"],
            locKey: "BK", locArgs: [])
        let expected =
            #"{"aps":{"alert":{"body":"B","launch-image":"L.png","loc-args":[],"loc-key":"BK","#
            + #""subtitle":"S","subtitle-loc-args":["sa","sb"],"subtitle-loc-key":"SK","#
            + #""title":"T","title-loc-args":["ta"],"title-loc-key":"TK"}}}"#
        #expect(Self.text(APNSPayload(alert: .content(alert))) == expected)
    }

    @Test("Live Activity keys")
    func liveActivity() {
        let update = APNSPayload(
            alert: .content(.init(title: "Score", body: "2-1")), relevanceScore: 0.5,
            liveActivity: .init(
                timestamp: 1_700_000_000, event: .update, contentState: ["home": 2, "away": 1],
                dismissalDate: 1_700_003_600, staleDate: 1_700_000_900))
        #expect(
            Self.text(update) == #"{"aps":{"alert":{"body":"2-1","title":"Score"},"#
                + #""content-state":{"away":1,"home":2},"dismissal-date":1700003600,"event":"update","#
                + #""relevance-score":0.5,"stale-date":1700000900,"timestamp":1700000000}}"#)
        let start = APNSPayload(
            liveActivity: .init(
                timestamp: 1, event: .start, contentState: [:], attributesType: "MatchAttributes",
                attributes: ["team": "A"], inputPushToken: true))
        #expect(
            Self.text(start) == #"{"aps":{"attributes":{"team":"A"},"attributes-type":"MatchAttributes","#
                + #""content-state":{},"event":"start","input-push-token":1,"timestamp":1}}"#)
        #expect(APNSPayload.LiveActivity.Event.end.rawValue == "end")
    }

    @Test("custom keys: sorted, nested, escaped; 'aps' cannot be overridden")
    func custom() {
        var payload = APNSPayload.alert("Mate request from Zoë")
        payload.custom = ["zeta": [1, 2.5, nil, true], "aps": "ignored", "card": ["name": "Bo \"B\"\n", "age": 3]]
        payload = payload.adding("drop", "d-1")
        #expect(
            Self.text(payload) == #"{"aps":{"alert":"Mate request from Zoë"},"#
                + #""card":{"age":3,"name":"Bo \"B\"\n"},"drop":"d-1","zeta":[1,2.5,null,true]}"#)
    }

    @Test("encoding is deterministic across equal payloads built in different orders")
    func deterministic() {
        var first = APNSPayload(badge: 3, category: "C")
        first.custom["b"] = 1
        first.custom["a"] = 2
        var second = APNSPayload(category: "C")
        second.custom["a"] = 2
        second.badge = 3
        second.custom["b"] = 1
        #expect(first.encoded() == second.encoded())
        #expect(Self.text(first) == #"{"a":2,"aps":{"badge":3,"category":"C"},"b":1}"#)
        #expect((try? JSONValue.parse(first.encoded())) == first.jsonValue)
    }
}
