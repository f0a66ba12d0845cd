import PushSync
import Testing

@testable import PushService

@Suite("Service log lines")
struct ServiceLoggerTests {
    @Test func durationsAreMillisecondsWithTwoDecimalsRounded() {
        func ms(_ seconds: Int64, _ attoseconds: Int64) -> String {
            ServiceLogger.milliseconds(Duration(secondsComponent: seconds, attosecondsComponent: attoseconds))
        }
        #expect(ms(0, 0) == "0.00")
        #expect(ms(0, 4_000_000_000_000) == "0.00")  // 0.004 ms
        #expect(ms(0, 5_000_000_000_000) == "0.01")  // 0.005 ms rounds up
        #expect(ms(0, 1_234_000_000_000_000) == "1.23")
        #expect(ms(0, 1_235_000_000_000_000) == "1.24")
        #expect(ms(0, 9_999_000_000_000_000) == "10.00")
        #expect(ms(2, 50_000_000_000_000) == "2000.05")
        #expect(ServiceLogger.milliseconds(.milliseconds(-3)) == "0.00")
    }

    @Test func fieldsAreBuiltOnlyForLinesThatAreWritten() {
        let lines = PThreadLock<[String]>([])
        let built = PThreadLock(0)
        let logger = ServiceLogger(level: .warning, sink: { line in lines.withLock { $0.append(line) } })
        func fields() -> [(String, String)] {
            built.withLock { $0 += 1 }
            return [("route", "push.create")]
        }
        logger.info("http.request", fields())
        logger.debug("push.accepted", fields())
        #expect(built.withLock { $0 } == 0)
        #expect(lines.withLock { $0 }.isEmpty)
        logger.warning("push.failed", fields())
        #expect(built.withLock { $0 } == 1)
        #expect(lines.withLock { $0 }.count == 1)
        #expect(lines.withLock { $0 }.first?.hasSuffix("event=push.failed route=push.create") == true)
    }
}
