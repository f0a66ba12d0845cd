import Foundation
import PushProcess
import TestSupport
import Testing

@Suite("SignalWaiter", .serialized)
struct SignalWaiterTests {
    @Test("a signal raised on an arbitrary thread before wait() is kept and returned")
    func threadDirectedSignalBeforeWait() async throws {
        let waiter = SignalWaiter([SIGUSR2])
        // `raise` targets the calling thread, here one that does not block SIGUSR2 (threads made from the
        // concurrency pool inherit its all-blocked mask): the case Dispatch signal sources could miss.
        let thread = Thread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            raise(SIGUSR2)
        }
        thread.start()
        #expect(try await awaitEvent("SIGUSR2 to reach the waiter") { await waiter.wait() } == SIGUSR2)
    }

    @Test("a signal sent to the process while a task waits wakes it")
    func processSignalWhileWaiting() async throws {
        let waiter = SignalWaiter([SIGUSR1, SIGUSR2])
        let number = Task { await waiter.wait() }
        kill(getpid(), SIGUSR1)
        #expect(try await awaitEvent("SIGUSR1 to reach the waiting task") { await number.value } == SIGUSR1)
    }

    @Test("every signal is returned, one per wait(), in order (SIGHUP reloads many times, then SIGTERM stops)")
    func repeatedSignals() async throws {
        let waiter = SignalWaiter([SIGUSR1, SIGUSR2])
        kill(getpid(), SIGUSR1)
        #expect(try await awaitEvent("SIGUSR1 to reach the waiter") { await waiter.wait() } == SIGUSR1)
        let second = Task { await waiter.wait() }
        kill(getpid(), SIGUSR2)
        #expect(try await awaitEvent("SIGUSR2 to reach the waiting task") { await second.value } == SIGUSR2)
        kill(getpid(), SIGUSR1)
        #expect(try await awaitEvent("SIGUSR1 to reach the waiter") { await waiter.wait() } == SIGUSR1)
    }

    @Test("names of the signals push-server reports")
    func names() {
        #expect(SignalWaiter.name(of: SIGTERM) == "SIGTERM")
        #expect(SignalWaiter.name(of: SIGINT) == "SIGINT")
        #expect(SignalWaiter.name(of: 99) == "signal 99")
    }
}
