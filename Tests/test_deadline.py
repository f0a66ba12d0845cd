"""Tests of Tests/deadline.py, the per-test and whole-run deadline of `make test`, against a stand-in for
`swift test` that writes Swift Testing's event stream and then behaves as told (end, hang in a test, hang
between tests)."""

import json
import os
import subprocess
import sys
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = os.path.join(HERE, "deadline.py")

# The stand-in: takes the FIFO from --experimental-event-stream-output, declares one suite and two tests,
# runs `quick` to its end, then does what its first argument says.
STAND_IN = textwrap.dedent(
    """
    import json, sys, time
    path = sys.argv[sys.argv.index("--experimental-event-stream-output") + 1]
    mode = sys.argv[1]
    def record(kind, payload):
        stream.write(json.dumps({"kind": kind, "payload": payload, "version": 0}) + "\\n")
        stream.flush()
    with open(path, "w") as stream:
        record("test", {"id": "M.Suite", "kind": "suite", "name": "Suite"})
        for name in ("quick()", "stuck()"):
            record("test", {"id": "M.Suite/" + name, "kind": "function", "name": name})
        record("event", {"kind": "testStarted", "testID": "M.Suite"})
        record("event", {"kind": "testStarted", "testID": "M.Suite/quick()"})
        record("event", {"kind": "testEnded", "testID": "M.Suite/quick()"})
        if mode == "hang-in-test":
            record("event", {"kind": "testStarted", "testID": "M.Suite/stuck()"})
        if mode == "exit-3":
            sys.exit(3)
        if mode == "hang-before-tests":
            record("event", {"kind": "testEnded", "testID": "M.Suite"})
        time.sleep(3600)
    """
)


def run(mode, *options):
    command = [sys.executable, DEADLINE, *options, "--", sys.executable, "-c", STAND_IN, mode]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


class DeadlineTests(unittest.TestCase):
    def test_a_hung_test_stops_the_run_and_is_named(self):
        result = run("hang-in-test", "--per-test", "1", "--total", "50")
        self.assertEqual(result.returncode, 124, result.stderr)
        self.assertIn("a test ran longer than 1 s", result.stderr)
        self.assertIn("M.Suite/stuck()", result.stderr)
        self.assertNotIn("M.Suite/quick()", result.stderr)

    def test_a_suite_alone_does_not_count_as_a_hung_test_but_the_whole_run_has_a_limit(self):
        result = run("hang-between-tests", "--per-test", "1", "--total", "3")
        self.assertEqual(result.returncode, 124, result.stderr)
        self.assertIn("the run took longer than 3 s", result.stderr)
        self.assertIn("M.Suite (", result.stderr)

    def test_a_run_hung_outside_any_test_says_so(self):
        result = run("hang-before-tests", "--per-test", "1", "--total", "3")
        self.assertEqual(result.returncode, 124, result.stderr)
        self.assertIn("no test (the run hung between tests or before the first)", result.stderr)

    def test_a_run_that_ends_keeps_its_status_and_reports_the_slowest(self):
        report = os.path.join(os.environ.get("TMPDIR", "/tmp"), "deadline-test-report-%d.txt" % os.getpid())
        try:
            result = run("exit-3", "--per-test", "30", "--total", "50", "--report", report)
            self.assertEqual(result.returncode, 3, result.stderr)
            self.assertNotIn("deadline:", result.stderr)
            with open(report, encoding="utf-8") as lines:
                self.assertIn("M.Suite/quick()", lines.read())
        finally:
            if os.path.exists(report):
                os.unlink(report)


if __name__ == "__main__":
    unittest.main()
