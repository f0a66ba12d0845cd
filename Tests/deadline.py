#!/usr/bin/env python3
"""Runs `swift test` with a deadline per test and one for the whole run.

A test that hangs should fail the run in minutes, naming itself, not hold CI until its own limit. This
reads Swift Testing's event stream (JSON lines, one per test started or ended) from a FIFO, keeps the tests
that have started and not ended, and when one of them has run longer than --per-test seconds, or the run
longer than --total, prints which tests were running and for how long, stops the whole process group and
exits 124. Otherwise it exits with the test run's own status.

Usage: deadline.py [--per-test S] [--total S] [--report FILE] -- swift test ...
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time


class Running:
    """The tests that have started and not ended, and what each one is (a suite or a function)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.kinds = {}  # test id -> "suite" | "function"
        self.names = {}  # test id -> display name
        self.started = {}  # test id -> monotonic start time, for tests running now
        self.durations = {}  # test id -> seconds, for tests that ended
        self.clock = time.monotonic

    def feed(self, line):
        try:
            record = json.loads(line)
        except ValueError:
            return
        payload = record.get("payload", {})
        with self.lock:
            if record.get("kind") == "test":
                self.kinds[payload.get("id")] = payload.get("kind")
                self.names[payload.get("id")] = payload.get("name")
                return
            kind, test = payload.get("kind"), payload.get("testID")
            if test is None:
                return
            if kind == "testStarted":
                self.started[test] = self.clock()
            elif kind in ("testEnded", "testSkipped"):
                began = self.started.pop(test, None)
                if began is not None:
                    self.durations[test] = self.clock() - began

    def overdue(self, limit):
        """Functions (not suites) running for longer than `limit` seconds, longest first."""
        now = self.clock()
        with self.lock:
            late = [
                (now - began, test)
                for test, began in self.started.items()
                if self.kinds.get(test) != "suite" and now - began > limit
            ]
        return sorted(late, reverse=True)

    def running(self):
        now = self.clock()
        with self.lock:
            return sorted(((now - began, test) for test, began in self.started.items()), reverse=True)

    def slowest(self, count):
        with self.lock:
            functions = [(d, t) for t, d in self.durations.items() if self.kinds.get(t) != "suite"]
        return sorted(functions, reverse=True)[:count]


def read_events(path, running):
    # Opening blocks until the test process opens its end; the thread is a daemon, so a run that never
    # opens it (a crash at launch) does not keep this process alive.
    with open(path, "r", encoding="utf-8", errors="replace") as stream:
        for line in stream:
            running.feed(line)


def stop(process):
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-test", type=float, default=300, help="seconds one test may run (default 300)")
    parser.add_argument("--total", type=float, default=1200, help="seconds the whole run may take (default 1200)")
    parser.add_argument("--report", help="write the slowest tests here when the run ends")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command given")

    directory = tempfile.mkdtemp(prefix="swift-test-events-")
    fifo = os.path.join(directory, "events.jsonl")
    os.mkfifo(fifo)
    running = Running()
    threading.Thread(target=read_events, args=(fifo, running), daemon=True).start()
    command += ["--experimental-event-stream-output", fifo, "--experimental-event-stream-version", "0"]
    began = time.monotonic()
    process = subprocess.Popen(command, start_new_session=True)
    verdict = None
    while verdict is None:
        try:
            status = process.wait(timeout=1)
            break
        except subprocess.TimeoutExpired:
            pass
        late = running.overdue(options.per_test)
        if late:
            verdict = "a test ran longer than %.0f s" % options.per_test
        elif time.monotonic() - began > options.total:
            verdict = "the run took longer than %.0f s" % options.total
    if verdict is not None:
        now_running = running.running()
        print("\ndeadline: %s; stopping the run. Running then:" % verdict, file=sys.stderr)
        for seconds, test in now_running:
            print("deadline:   %s (%.0f s)" % (test, seconds), file=sys.stderr)
        if not now_running:
            print("deadline:   no test (the run hung between tests or before the first)", file=sys.stderr)
        stop(process)
        status = 124
    if options.report:
        with open(options.report, "w", encoding="utf-8") as report:
            for seconds, test in running.slowest(40):
                report.write("%8.1f s  %s\n" % (seconds, test))
    os.unlink(fifo)
    os.rmdir(directory)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
