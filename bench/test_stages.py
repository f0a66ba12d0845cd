"""Tests of bench/stages.py (B7's cost budget per stage) on bench/testdata/b7-folded.txt: fourteen stacks taken
from a real profile of push-server during B7 (perf's stackcollapse, demangled), one a line, with their counts."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import stages  # noqa: E402

FIXTURE = os.path.join(HERE, "testdata", "b7-folded.txt")
# The stage of each fixture line, in order, and why.
EXPECTED = [
    "claim",                 # sqlite3VdbeExec under SQLiteOutboxRepository.claim
    "completion",            # a pwrite in the kernel under SQLiteOutboxRepository.complete
    "webhooks and metrics",  # ServiceMetrics.recordSends inside OutboxWorker.apply: the innermost stage frame wins
    "mock",                  # MockAPNSConnectionHandler under the mock's HTTP2ServerConnection
    "client",                # nghttp2 under the client's HTTP2ClientConnection
    "HTTP + JSON",           # PushRequest.init inside PushAPI.createPush
    "webhooks and metrics",  # PushAPI.metricsText: metrics before HTTP within one frame
    "enqueue",               # sqlite3 under SQLiteOutboxRepository.enqueue
    "claim",                 # OutboxWorker.launch turning claimed rows into notifications
    "enqueue",               # the outbox bound's read (pendingCounts)
    "webhooks and metrics",  # the store's counts for /metrics
    "client",                # APNSClient.submit and its dispatcher on the client's event loop
    "other",                 # a stack cut short: no stage frame
    "other",                 # SSL_read of an event loop, whose connection the stack does not name
]


def fixture():
    with open(FIXTURE, encoding="utf-8") as f:
        return f.readlines()


class StageTests(unittest.TestCase):
    def test_each_fixture_stack_gets_its_stage(self):
        got = [stages.stage_of(frames) for frames, _ in stages.parse(fixture())]
        self.assertEqual(got, EXPECTED)

    def test_samples_are_summed_per_stage(self):
        per_stage, other = stages.attribute(fixture())
        self.assertEqual(list(per_stage), stages.ORDER)
        self.assertEqual(per_stage, {"HTTP + JSON": 1, "enqueue": 3, "claim": 49, "client": 5, "completion": 1,
                                     "webhooks and metrics": 5, "other": 20, "mock": 1})
        self.assertEqual(other.most_common(1), [("swift_bridgeObjectRelease", 18)])

    def test_budget_multiplies_shares_by_cpu_and_keeps_the_mock_apart(self):
        per_stage = {stage: 0 for stage in stages.ORDER}
        per_stage.update({"claim": 30, "client": 20, "mock": 40, "other": 10})
        b = stages.budget(per_stage, 50.0)
        self.assertEqual(b["samples"], 100)
        self.assertAlmostEqual(b["stage_us"]["claim"], 15.0)
        self.assertAlmostEqual(b["stage_us"]["mock"], 20.0)
        self.assertAlmostEqual(b["service_us"], 30.0)
        self.assertAlmostEqual(b["mock_us"], 20.0)
        self.assertAlmostEqual(sum(b["stage_share"].values()), 1.0)

    def test_the_thread_name_is_not_a_frame(self):
        # The first folded frame is the thread's name: a thread called after a stage must not count as one.
        self.assertEqual(stages.stage_of(next(stages.parse(["MockAPNS-thread;malloc 3\n"]))[0]), "other")

    def test_result_line_carries_the_run_and_its_budget(self):
        run = {"n": 1000, "cpu_us_per_notification": 40.0, "rate": 100.0, "rss_mb_by_tenth": [1, 2]}
        out = stages.result_line(fixture(), run)
        self.assertEqual(out["rate"], 100.0)
        self.assertNotIn("rss_mb_by_tenth", out)
        self.assertAlmostEqual(out["budget"]["stage_us"]["claim"], 40.0 * 49 / 85)
        # 85 samples are too few to judge by: the run says so.
        self.assertIn("only 85 samples", out["error"])
        self.assertNotIn("budget", stages.result_line(fixture(), {"error": "timeout"}))

    def test_command_line_budget(self):
        done = subprocess.run([sys.executable, os.path.join(HERE, "stages.py"), "budget", FIXTURE,
                               json.dumps({"cpu_us_per_notification": 10.0})], capture_output=True, text=True, check=True)
        out = json.loads(done.stdout)
        self.assertEqual(out["budget"]["stage_samples"]["claim"], 49)


if __name__ == "__main__":
    unittest.main()
