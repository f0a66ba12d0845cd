import Foundation

/// What a chaos run does: how much load, which faults the mock APNs injects, how often push-server dies.
public struct ChaosPlan: Sendable {
    /// The `push-server` binary to run (and kill).
    public var serverBinary: String
    /// Scratch directory: data, credentials and logs of the run go below it.
    public var workDirectory: String
    /// Notifications to get acknowledged (2xx) by `POST /v1/pushes`.
    public var pushes = 100_000
    /// Tokens per `POST /v1/pushes`.
    public var batchSize = 500
    /// `POST`s in flight at once.
    public var concurrency = 4
    /// SIGKILLs of push-server, each followed by a restart on the same data.
    public var kills = 3
    /// The mock sends GOAWAY after this many streams on a connection.
    public var goAwayEvery = 1_000
    /// The mock resets the TCP connection carrying every N-th stream (counted over all connections).
    public var abruptCloseEvery = 5_000
    /// The mock closes each connection this long after its GOAWAY, answered or not (nil: it
    /// waits for push-server to close it).
    public var closeAfterGoAway: Duration?
    /// After each rejection the mock lowers the connection's MAX_CONCURRENT_STREAMS to 1, and raises it
    /// again after the next success (Apple's throttle).
    public var dropStreamLimitAfterRejection = false
    /// Chance of 429 TooManyRequests per otherwise accepted notification.
    public var tooManyRequestsRate = 0.01
    /// Chance of 503 ServiceUnavailable per otherwise accepted notification.
    public var serviceUnavailableRate = 0.01
    /// The mock answers after a delay drawn uniformly from 0...`maxJitter`.
    public var maxJitter: Duration = .milliseconds(50)
    /// Seed of the mock's fault and jitter rolls.
    public var seed: UInt64 = 0xC4A05
    /// push-server instances: 1 runs one on SQLite; more run them on one throwaway PostgreSQL database
    /// behind haproxy, and each SIGKILL hits one of them in turn (`make chaos-cluster`).
    public var instances = 1
    /// The outbox lease of the instances on PostgreSQL (push-server's minimum is 10 s): a killed
    /// instance's in-flight rows go to the others once it ends.
    public var lease: Duration = .seconds(10)
    /// Other `outbox` settings of the instances on PostgreSQL (`max_in_flight`, `claim_batch`); empty: the
    /// server's defaults.
    public var serverOutbox: [String: Int] = [:]
    /// Gives up waiting for delivery after this long (the reconciliation still runs and reports).
    public var deliveryTimeout: Duration = .seconds(600)

    /// The full run of `make chaos`, with its scratch space under `workDirectory`.
    public init(serverBinary: String, workDirectory: String) {
        self.serverBinary = serverBinary
        self.workDirectory = workDirectory
    }

    /// True when no connection is reset and no process killed: then no notification may be accepted
    /// twice, since every answer APNs sent reached push-server.
    public var cutsNothing: Bool { kills == 0 && abruptCloseEvery == 0 }

    /// When push-server is killed: the first at this many acknowledged notifications, the others at this
    /// many accepted by the mock; evenly spread over the load.
    var killThresholds: [Int] {
        guard kills > 0 else { return [] }
        return (1...kills).map { pushes * $0 / (kills + 1) }
    }
}
