public import APNSCore
import JSON
import PushStore

/// The APNs payloads of mate-request pushes.
///
/// A request: `{"aps": {"alert": {…}, "category": "MATE_REQUEST", "sound": "default"},
/// "mate_request": {"id", "drop_id", "from": {"user_id", "card": {name, dog_name, …}}}}`.
/// An answer: category `MATE_REQUEST_ANSWER` and `"mate_request_answer": {"id", "drop_id", "state",
/// "from": {"user_id", "card"?}}`.
public enum MateRequestPayload {
    /// The `aps.category` of a mate request.
    public static let requestCategory = "MATE_REQUEST"
    /// The `aps.category` of an answer.
    public static let answerCategory = "MATE_REQUEST_ANSWER"

    /// The alert title of a mate request.
    static let requestTitle = "New mate request"

    /// The alert body of a mate request from the owner of `card`.
    static func requestBody(_ card: ProfileCard) -> String {
        "\(card.name) and \(card.dogName) want to walk together"
    }

    /// The push telling the recipient someone wants to be walk mates, with the sender's card.
    public static func request(_ notice: MateRequestNotice) -> APNSPayload {
        let request = notice.request
        let card = notice.senderCard
        return APNSPayload(
            alert: .content(.init(title: requestTitle, body: requestBody(card))),
            sound: .default, category: requestCategory,
            custom: [
                "mate_request": .object([
                    "id": .string(request.id),
                    "drop_id": .string(request.dropID),
                    "from": .object(["user_id": .string(request.senderID), "card": card.json]),
                ])
            ])
    }

    /// The bytes of `request(notice).encoded()`, written straight instead of through a tree of JSON
    /// dictionaries: the drop rules make one per match inside the store's transaction, where building and
    /// sorting that tree was most of the match's own work. Keys come in the order `encoded()` sorts them to
    /// (`MateRequestPushesTests` holds the two equal).
    public static func encodedRequest(_ notice: MateRequestNotice) -> [UInt8] {
        let request = notice.request
        let card = notice.senderCard
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out.append(contentsOf: #"{"aps":{"alert":{"body":"#.utf8)
        JSONValue.writeString(requestBody(card), to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONValue.writeString(requestTitle, to: &out)
        out.append(contentsOf: #"},"category":"#.utf8)
        JSONValue.writeString(requestCategory, to: &out)
        out.append(contentsOf: #","sound":"#.utf8)
        APNSPayload.Sound.default.jsonValue.write(to: &out)
        out.append(contentsOf: #"},"mate_request":{"drop_id":"#.utf8)
        JSONValue.writeString(request.dropID, to: &out)
        out.append(contentsOf: #","from":{"card":"#.utf8)
        card.json.write(to: &out)
        out.append(contentsOf: #","user_id":"#.utf8)
        JSONValue.writeString(request.senderID, to: &out)
        out.append(contentsOf: #"},"id":"#.utf8)
        JSONValue.writeString(request.id, to: &out)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// The push telling the sender how the recipient answered.
    public static func answer(_ notice: MateAnswerNotice) -> APNSPayload {
        let request = notice.request
        let accepted = request.state == .accepted
        let who = notice.responderCard.map { "\($0.name) and \($0.dogName)" } ?? "Your match"
        var from: [String: JSONValue] = ["user_id": .string(request.recipientID)]
        from["card"] = notice.responderCard.map(\.json)
        return APNSPayload(
            alert: .content(
                .init(
                    title: accepted ? "Mate request accepted" : "Mate request declined",
                    body: accepted
                        ? "\(who) accepted your mate request"
                        : "\(who) declined your mate request")),
            sound: .default, category: answerCategory,
            custom: [
                "mate_request_answer": .object([
                    "id": .string(request.id),
                    "drop_id": .string(request.dropID),
                    "state": .string(request.state.rawValue),
                    "from": .object(from),
                ])
            ])
    }

}
