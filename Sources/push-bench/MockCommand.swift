import APNSCore
import APNSMock
import Dispatch
import Foundation
import PushTLS
import PushTLSTesting
import Synchronization

/// `push-bench mock`: a standalone mock APNs server for h2load, aioapns and `push-bench client`.
enum MockCommand {
    static let bundleID = "com.example.sniffmeet"

    static func run(_ arguments: Arguments) throws {
        let noClientAuth = arguments.flag("no-client-auth")
        if noClientAuth, !arguments.flag("accept-all") {
            // Without a client certificate the rules have no sender to check topics against.
            throw UsageError(description: "--no-client-auth needs --accept-all (h2load cannot present a client certificate)")
        }
        let directory = try arguments.required("write-credentials")
        let files = try TestCredentialFiles.write(to: directory, bundleID: bundleID, password: "bench")
        var configuration = try MockAPNSServer.Configuration(credentialFiles: files)
        configuration.host = arguments.string("host") ?? "127.0.0.1"
        configuration.port = try arguments.int("port", 0)
        configuration.acceptAll = arguments.flag("accept-all")
        if noClientAuth { configuration.clientCertificatePolicy = ClientCertificatePolicy.none }
        configuration.maxConcurrentStreams = try arguments.int("max-streams", 1000)
        configuration.dropStreamLimitAfterRejection = arguments.flag("drop-limit-after-rejection")
        let latencyMS = try arguments.double("latency-ms", 0)
        // Either path answers this late (the fast path too: its answers wait on one timer per millisecond).
        if latencyMS > 0 { configuration.latency = .fixed(.milliseconds(latencyMS)) }
        let rejectPercent = try arguments.double("reject-percent", 0)
        if rejectPercent > 0 {
            guard !configuration.acceptAll else {
                throw UsageError(description: "--reject-percent needs the rule path: drop --accept-all")
            }
            configuration.handler = everyNth(percent: rejectPercent)
        }

        let mock = try MockAPNSServer(configuration: configuration)
        // The mock is the sandbox, which adds an `apns-unique-id` to every accepted notification; production
        // APNs sends none (on the fast path and the rule path alike).
        if arguments.flag("no-unique-ids") { mock.updateKnobs { $0.sendsUniqueIDs = false } }
        Output.line("listening \(mock.port)")
        waitForStop(watchStdin: !arguments.flag("ignore-stdin"))
        let counters = mock.counters()
        mock.stop()
        var report = Report("mock")
        report.add("accepted", counters.accepted)
        report.add("rejected", counters.rejected)
        report.add("streams", counters.streams)
        report.add("connections", counters.connections)
        report.add("max_concurrent_streams_seen", counters.maxObservedConcurrentStreams)
        report.add("unique_ids", mock.knobs.sendsUniqueIDs)
        report.add("accept_all", configuration.acceptAll)
        report.add("latency_ms", latencyMS)
        report.add("cpu_us", ProcessCPU.microseconds())
        report.add("peak_rss_kib", ProcessCPU.peakRSSKiB())
        report.print()
    }

    /// Rejects `percent`% of requests, evenly spread (the n-th request is rejected when n·p/100
    /// crosses an integer), as `BadDeviceToken`; the others follow the default rules.
    static func everyNth(percent: Double) -> MockAPNSHandler {
        let seen = Atomic<Int>(0)
        return { _ in
            let n = seen.add(1, ordering: .relaxed).newValue
            let before = Int(Double(n - 1) * percent / 100)
            let after = Int(Double(n) * percent / 100)
            return after > before ? .reject(.badDeviceToken) : nil
        }
    }

    /// Blocks until SIGTERM or SIGINT arrives or, if `watchStdin`, stdin reaches end of file.
    static func waitForStop(watchStdin: Bool) {
        let done = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        if watchStdin {
            let reader = Thread {
                while !FileHandle.standardInput.availableData.isEmpty {}
                done.signal()
            }
            reader.start()
        }
        done.wait()
        for source in sources { source.cancel() }
    }
}
