import APNSCore
import Foundation
import JSON
import Testing

/// Calls the control API with curl; returns the status and the parsed body.
func controlCurl(_ method: String, _ url: String, body: String? = nil) throws -> (status: Int, json: JSONValue?) {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments =
        ["--silent", "--show-error", "-X", method, "--write-out", "\n%{http_code}"]
        + (body.map { ["-H", "Content-Type: application/json", "--data", $0] } ?? []) + [url]
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let newline = text.lastIndex(of: "\n") ?? text.startIndex
    let status = Int(text[text.index(after: newline)...]) ?? 0
    return (status, try? JSONValue.parse(Array(text[..<newline].utf8)))
}

@Suite("pushctl mock-apns --control-port")
struct MockControlCommandTests {
    static let token = String(repeating: "ab", count: 32)

    @Test("credentials.json names the control URL; a rule set with curl answers send --direct; records show it")
    func controlThroughCurl() throws {
        let mock = try MockAPNSProcess(["--control-port", "0"])
        let url = try #require(mock.manifest["control_url"] as? String)
        #expect(url.hasPrefix("http://127.0.0.1:"))
        let rule = try controlCurl(
            "POST", url + "/rules",
            body: #"{"match":{"token":"\#(Self.token)"},"answer":{"reason":"Unregistered"},"times":1}"#)
        #expect(rule.status == 201)
        let rejected = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "Woof"])
        #expect(rejected.status != 0)
        #expect((rejected.stdout + rejected.stderr).contains("Unregistered"))
        let accepted = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", "Woof"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let records = try controlCurl("GET", url + "/records/wait?count=2&timeout_ms=10000&token=\(Self.token)")
        #expect(records.status == 200)
        let answers = records.json?["records"]?.arrayValue?.map { $0["answer"]?["status"]?.intValue } ?? []
        #expect(answers == [410, 200])
        let bad = try controlCurl("PATCH", url + "/knobs", body: #"{"rate_429":3}"#)
        #expect(bad.status == 400 && bad.json?["error"]?["code"]?.stringValue == "bad_request")
        #expect(mock.stop() == 0)
    }

    @Test("--max-records keeps the newest records only; the counters count every request")
    func maxRecords() throws {
        let mock = try MockAPNSProcess(["--control-port", "0", "--max-records", "2"])
        let url = try #require(mock.manifest["control_url"] as? String)
        for body in ["one", "two", "three"] {
            let sent = try PushCtlProcess.run(mock.directArguments + ["--token", Self.token, "--body", body])
            #expect(sent.status == 0, "\(sent.stderr)")
        }
        let records = try controlCurl("GET", url + "/records?token=\(Self.token)")
        #expect(records.status == 200)
        let payloads = records.json?["records"]?.arrayValue?.compactMap { $0["payload"]?.stringValue } ?? []
        try #require(payloads.count == 2)
        #expect(payloads[0].contains("two") && payloads[1].contains("three"))
        let counters = try controlCurl("GET", url + "/counters")
        #expect(counters.json?["accepted"]?.intValue == 3)
        #expect(mock.stop() == 0)
    }

    @Test("without --control-port there is no control URL")
    func noControl() throws {
        let mock = try MockAPNSProcess()
        #expect(mock.manifest["control_url"] is NSNull)
        #expect(mock.stop() == 0)
    }

    @Test(
        "--control-port with --accept-all or out of range, and --max-records below 1, are usage errors",
        arguments: [
            (["--control-port", "0", "--accept-all"], "--control-port needs rules and records: leave out --accept-all"),
            (["--control-port", "70000"], "--control-port must be 0-65535"),
            (["--control-port", "x"], "'--control-port' needs a whole number, got 'x'"),
            (["--max-records", "0"], "--max-records must be at least 1"),
            (["--max-records", "x"], "'--max-records' needs a whole number, got 'x'"),
        ])
    func usage(_ extra: [String], _ message: String) throws {
        let result = try PushCtlProcess.run(["mock-apns", "--port", "0"] + extra)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr == "pushctl: error: \(message) (hint: run 'pushctl mock-apns --help')\n", "\(result.stderr)")
    }
}
