"""Tests of bench/b7_service.py in B7H's open-loop mode, against a real push-server and `push-bench mock` (the
release or debug builds in .build, whichever is newer; PUSH_SERVER and PUSH_BENCH override them): the mock on B7's
fast path answers 40 ms late, and a warm-up post goes through before the schedule without being counted."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def built(name, variable):
    """The binary to run: $variable, else the newest of the release and debug builds; None when none is built."""
    if os.environ.get(variable):
        return os.environ[variable]
    found = [p for p in (os.path.join(ROOT, ".build", kind, name) for kind in ("release", "debug")) if os.access(p, os.X_OK)]
    return max(found, key=os.path.getmtime) if found else None


SERVER, BENCH = built("push-server", "PUSH_SERVER"), built("push-bench", "PUSH_BENCH")


@unittest.skipUnless(SERVER and BENCH, "push-server and push-bench not built (swift build)")
class OpenLoopTests(unittest.TestCase):
    def test_b7h_on_the_fast_path_with_a_latency_and_an_uncounted_warm_up(self):
        work = tempfile.mkdtemp(prefix="b7-service-")
        self.addCleanup(shutil.rmtree, work, True)
        n, batch = 400, 100
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "b7_service.py"), "--server", SERVER, "--mock", BENCH,
             "--mock-path", "fast", "--work", work, "-n", str(n), "--batch", str(batch), "--parallel", "2",
             "--timeout", "60", "--rate", "2000", "--mock-latency-ms", "40"],
            capture_output=True, text=True, timeout=120)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        self.assertEqual(done.returncode, 0, result)
        self.assertNotIn("first_error", result)
        self.assertEqual((result["n"], result["accepted"], result["mock_path"]), (n, n, "fast"))
        # The warm-up post's notifications reached the mock, and are in none of the run's figures.
        self.assertEqual(result["mock_accepted"], n + batch)
        # Every answer came at least the mock's 40 ms after its request left the service.
        self.assertGreaterEqual(result["p50_ms"], 40 * 0.9)


if __name__ == "__main__":
    unittest.main()
