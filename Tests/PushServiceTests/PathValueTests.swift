import APNSCore
import PushHTTP
import PushHTTP1
import Testing

@testable import PushService

/// Path parameters are read once, by the router: a route's device token and channel id reach the handler
/// typed, and a malformed one is answered 400 `invalid_path` before any handler runs.
@Suite("Typed path parameters")
struct PathValueTests {
    static let hex = String(repeating: "Ab", count: 32)

    static func route(_ pattern: String, _ parameters: [String: PathParameter]) -> APIRoute {
        APIRoute("DELETE", pattern, scope: .manage, parameters: parameters) { _ in .empty(status: 204) }
    }

    static func parse(_ route: APIRoute, _ path: String) throws -> Result<[String: PathValue], APIError> {
        let captured = try #require(route.match(path.split(separator: "/")))
        return route.parse(captured)
    }

    @Test("a device token and a channel id come out as their types")
    func typedValues() throws {
        let devices = Self.route("/v1/devices/{token}", ["token": .deviceToken])
        let token = try DeviceToken(Self.hex)
        #expect(try Self.parse(devices, "/v1/devices/\(Self.hex)").get() == ["token": .deviceToken(token)])
        let channels = Self.route("/v1/channels/{id}", ["id": .channelID])
        // The URL-safe alphabet reads as the standard one APNs uses.
        #expect(try Self.parse(channels, "/v1/channels/ab-_cd==").get() == ["id": .channelID(APNSChannelID("ab+/cd=="))])
        let users = Self.route("/v1/users/{id}", ["id": .userID])
        #expect(try Self.parse(users, "/v1/users/ana.b").get() == ["id": .text("ana.b")])
    }

    @Test("a malformed parameter is 400 invalid_path with its rule")
    func malformedValues() throws {
        let devices = Self.route("/v1/devices/{token}", ["token": .deviceToken])
        for bad in ["abc", String(repeating: "a", count: 65), String(repeating: "g", count: 64)] {
            guard case .failure(let error) = try Self.parse(devices, "/v1/devices/\(bad)") else {
                Issue.record("\(bad) was taken")
                continue
            }
            #expect(error.status == 400 && error.code == "invalid_path")
            #expect(error.message == "token must be an even number (64-200) of hex digits")
        }
        let channels = Self.route("/v1/channels/{id}", ["id": .channelID])
        guard case .failure(let error) = try Self.parse(channels, "/v1/channels/not!base64") else {
            Issue.record("a malformed channel id was taken")
            return
        }
        #expect(error.code == "invalid_path" && error.message == "id must be a base64 channel id")
    }

    @Test("a handler reads the parsed value; a route that declared none answers 400 invalid_path")
    func requestAccessors() throws {
        let http = HTTPServerRequest(method: "DELETE", path: "/v1/devices/x")
        let token = try DeviceToken(Self.hex)
        let request = APIRequest(http: http, parameters: ["token": Self.hex], values: ["token": .deviceToken(token)])
        #expect(try request.deviceToken("token") == token)
        #expect(throws: APIError.self) { try request.channelID("token") }
        let undeclared = APIRequest(http: http, parameters: ["token": Self.hex])
        do {
            _ = try undeclared.deviceToken("token")
            Issue.record("an undeclared parameter was read as a token")
        } catch {
            #expect(error.code == "invalid_path")
        }
    }
}
