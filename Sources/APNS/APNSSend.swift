import APNSCore
import PushHTTP2
import PushIO

/// One notification on its way through the dispatcher, and the exchange its connection carries: made on
/// the caller's task and handed over whole (`sending`) to the client's loop, the only thread that
/// touches it afterwards. Not `Sendable`.
///
/// It keeps of the response only what the outcome needs (the ids and the body of a rejection), so an
/// answer costs no header array.
final class APNSSend: HTTP2ClientExchange, APNSPoolRequest {
    /// Where the outcome goes: a suspended `send` call, or one slot of a batch.
    enum Receiver {
        case continuation(UnsafeContinuation<APNSOutcome, any Error>)
        case batch(APNSBatchSink, index: Int)
    }

    let id: UInt64
    let started: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant
    /// The provider JWT of the last write (token auth only).
    var jwt: String?
    /// How many header fields the request had before an `authorization` field was added (token auth).
    var unauthorizedHeaderCount: Int?
    /// Whether the token was already replaced once after 403 ExpiredProviderToken.
    var refreshedToken = false
    private var receiver: Receiver?
    /// The connection it is on (queued or open), nil while waiting for one or once finished.
    var connection: APNSPoolConnection?
    /// The dispatcher that routed it, which its end goes back to.
    unowned(unsafe) var dispatcher: APNSDispatcher?
    /// `apns-id` (device pushes) or `apns-request-id` (broadcasts) of the answer.
    private(set) var answerID: String?
    /// `apns-unique-id` of the answer.
    private(set) var uniqueID: String?
    /// The answer's body (a rejection's JSON).
    private(set) var body: [UInt8] = []

    init(id: UInt64, request: HTTP2Request, started: ContinuousClock.Instant, deadline: ContinuousClock.Instant, receiver: Receiver) {
        self.id = id
        self.started = started
        self.deadline = deadline
        self.receiver = receiver
        super.init(request: request)
    }

    /// Hands the result to its receiver, once; later calls do nothing.
    func deliver(_ delivery: APNSDeliveryResult) {
        guard let receiver else { return }
        self.receiver = nil
        switch receiver {
        case .continuation(let continuation):
            switch delivery {
            case .accepted(let apnsID, let uniqueID): continuation.resume(returning: .accepted(apnsID: apnsID, uniqueID: uniqueID))
            case .rejected(let rejection): continuation.resume(returning: .rejected(rejection))
            case .failed(let error): continuation.resume(throwing: error)
            }
        case .batch(let sink, let index): sink.add(index: index, delivery: delivery)
        }
    }

    /// Forgets an earlier answer before the notification goes out again.
    func clearAnswer() {
        answerID = nil
        uniqueID = nil
        body = []
    }

    override func receivedHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        // apns-id (7 bytes), apns-unique-id (14), apns-request-id (15): compared by length first.
        switch name.count {
        case 7 where Self.equal(name, "apns-id"):
            answerID = String(decoding: value, as: UTF8.self)
        case 14 where Self.equal(name, "apns-unique-id"):
            uniqueID = String(decoding: value, as: UTF8.self)
        case 15 where answerID == nil && Self.equal(name, "apns-request-id"):
            answerID = String(decoding: value, as: UTF8.self)
        default:
            break
        }
    }

    /// Whether `bytes` are `literal`'s UTF-8 (byte by byte: a generic comparison with a string's UTF-8
    /// view cost more than the rest of the answer's handling).
    private static func equal(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { text in
            guard text.count == bytes.count else { return false }
            for index in 0..<text.count where text[index] != bytes[index] { return false }
            return true
        }
    }

    override func receivedData(_ bytes: UnsafeRawBufferPointer) {
        body.append(contentsOf: bytes)
    }

    override func finished(_ failure: HTTP2ClientFailure?) {
        dispatcher?.complete(self, failure)
    }
}
