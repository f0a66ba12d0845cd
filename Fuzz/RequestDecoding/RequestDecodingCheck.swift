import APNSCore
import FuzzSupport
import JSON
import ProfileDrop
import PushHTTP
import PushHTTP1
import PushService
import PushStore

/// Feeds arbitrary bytes to what push-server does with a request body: the JSON parser, then the
/// decoders of `POST /v1/pushes`, `POST /v1/devices`, `PUT /v1/users/{id}` and `POST /v1/drops`.
enum RequestDecodingCheck {
    static func run(_ bytes: [UInt8]) {
        checkParser(bytes)
        let fields: JSONFields
        do {
            fields = try JSONFields.parse(body: bytes)
        } catch {
            checkRefusal(error)
            return
        }
        checkPush(fields)
        checkDevice(fields)
        checkUser(fields)
        checkDrop(fields)
    }

    /// Whatever the parser accepts re-serializes to canonical JSON that parses back to the same value;
    /// whatever it refuses, it refuses at an offset inside the input.
    private static func checkParser(_ bytes: [UInt8]) {
        do {
            let value = try JSONValue.parse(bytes)
            let canonical = value.serialized()
            let again = FuzzCheck.expectCanonicalJSON(canonical, "the re-serialized body")
            FuzzCheck.expect(again == value, "the body changed value through serialize and parse")
            FuzzCheck.expect(FuzzCheck.depth(of: value) <= JSONValue.maximumDepth, "nesting limit not enforced")
        } catch {
            FuzzCheck.expect((0...bytes.count).contains(error.offset), "error offset \(error.offset) outside the input")
        }
    }

    /// A refused body is a 400 whose JSON error body parses.
    private static func checkRefusal(_ error: APIError) {
        FuzzCheck.expect(error.status == 400, "a body was refused with status \(error.status), not 400")
        let body = FuzzCheck.expectCanonicalJSON(error.response.body, "an error response")
        FuzzCheck.expect(body["error"]?["code"]?.stringValue == error.code, "the error body lost its code")
    }

    private static func checkPush(_ fields: JSONFields) {
        let request: PushRequest
        do {
            request = try PushRequest(fields)
        } catch {
            checkRefusal(error)
            return
        }
        switch request.target {
        case .tokens(let tokens):
            FuzzCheck.expect(!tokens.isEmpty && tokens.count <= PushRequest.maxTokens, "token count \(tokens.count)")
            FuzzCheck.expect(Set(tokens).count == tokens.count, "duplicate tokens survived")
            for token in tokens {
                FuzzCheck.expect((try? DeviceToken(token.hex)) == token, "token \(token) is not normalized")
            }
        case .user(let id):
            FuzzCheck.expect(!id.isEmpty && id.utf8.count <= 64, "user_id of \(id.utf8.count) bytes")
        }
        let payload = FuzzCheck.expectCanonicalJSON(request.payload, "the push payload")
        guard case .object(let root) = payload else { return FuzzCheck.expect(false, "the payload is not an object") }
        if fields.members["payload"] == nil {
            FuzzCheck.expect(root["aps"]?.objectValue?.isEmpty == false, "a built payload has no aps dictionary")
        }
        do {
            try request.validate(topic: request.topic ?? "com.example.app")
            FuzzCheck.expect(
                request.payload.count <= request.pushType.maxPayloadBytes,
                "a \(request.payload.count)-byte payload passed validation")
        } catch {
            checkRefusal(error)
        }
    }

    private static func checkDevice(_ fields: JSONFields) {
        do {
            let device = try DeviceRegistrationRequest(fields)
            FuzzCheck.expect((try? DeviceToken(device.token.hex)) == device.token, "device token not normalized")
            FuzzCheck.expect(!device.userID.isEmpty && device.userID.utf8.count <= 64, "device user_id length")
            FuzzCheck.expect([.production, .development].contains(device.environment), "environment \(device.environment)")
        } catch {
            checkRefusal(error)
        }
    }

    private static func checkUser(_ fields: JSONFields) {
        let card: ProfileCard
        do {
            card = try ProfileCard(fields)
        } catch {
            checkRefusal(error)
            return
        }
        do {
            try card.validate()
        } catch {
            return
        }
        let encoded = Array(card.encodedJSON().utf8)
        FuzzCheck.expect(encoded.count <= ProfileCard.maxEncodedBytes, "a validated card encodes to \(encoded.count) bytes")
        do {
            let value = try JSONValue.parse(encoded)
            FuzzCheck.expect(value["name"]?.stringValue == card.name, "the encoded card lost its name")
        } catch {
            FuzzCheck.expect(false, "a validated card encodes to invalid JSON: \(error)")
        }
    }

    private static func checkDrop(_ fields: JSONFields) {
        do {
            let report = try DropReportBody(fields)
            FuzzCheck.expect(report.distance.isFinite, "distance \(report.distance)")
            if let direction = report.direction {
                FuzzCheck.expect(direction.x.isFinite && direction.y.isFinite && direction.z.isFinite, "direction \(direction)")
            }
        } catch {
            checkRefusal(error)
        }
    }
}
