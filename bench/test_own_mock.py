"""Tests of bench/own_mock.py: the mock APNs in its own process that bench/b7_service.py points push-server at.

The options and push-server's app entry are checked as they are; the answers of a real `push-bench mock` (curl
over HTTP/2 with the client certificate it wrote) when a push-bench is built: PUSH_BENCH, else the release or
debug build in .build (`swift build` builds it; `make bench` the release one)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import own_mock  # noqa: E402

TOKEN = "ab" * 32


def built_push_bench():
    """The push-bench to run: PUSH_BENCH, else the newest of the release and debug builds; None when none is built."""
    if os.environ.get("PUSH_BENCH"):
        return os.environ["PUSH_BENCH"]
    root = os.path.dirname(HERE)
    built = [p for p in (os.path.join(root, ".build", kind, "push-bench") for kind in ("release", "debug"))
             if os.access(p, os.X_OK)]
    return max(built, key=os.path.getmtime) if built else None


class OptionsTests(unittest.TestCase):
    def test_the_fast_path_is_b1s_mock_with_production_answers(self):
        self.assertEqual(own_mock.mock_args(), ["--accept-all", "--no-unique-ids"])
        self.assertEqual(own_mock.mock_args("fast", production_answers=False), ["--accept-all"])

    def test_a_latency_on_either_path(self):
        self.assertEqual(own_mock.mock_args("rules", 40), ["--latency-ms", "40", "--no-unique-ids"])
        self.assertEqual(own_mock.mock_args("fast", 40), ["--accept-all", "--latency-ms", "40", "--no-unique-ids"])
        self.assertEqual(own_mock.mock_args("rules", 0), ["--no-unique-ids"])   # 0: no latency
        with self.assertRaises(ValueError):
            own_mock.mock_args("embedded")

    def test_the_report_must_show_the_mock_ran_as_asked(self):
        report = {"accepted": 1, "unique_ids": False, "accept_all": True, "latency_ms": 40.0}
        self.assertIsNone(own_mock.report_error(report, "fast", 40))
        self.assertIn("latency_ms 40", own_mock.report_error(report, "fast", None))
        self.assertIn("latency_ms 0", own_mock.report_error(dict(report, latency_ms=0.0), "fast", 40))
        self.assertIn("accept_all True", own_mock.report_error(report, "rules", 40))
        self.assertIn("unique_ids False", own_mock.report_error(report, "fast", 40, production_answers=False))
        # A report without the fields (a mock that predates them, or none at all) is not taken as right.
        self.assertIsNotNone(own_mock.report_error({"accepted": 1, "unique_ids": False}, "fast"))
        self.assertIsNotNone(own_mock.report_error(None))

    def test_the_app_sends_to_the_mock_with_its_credentials(self):
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "client.p12.password"), "w") as f:
                f.write("secret\n")
            app = own_mock.app_config(4433, directory)
        self.assertEqual(app, {"name": "sniffmeet", "topic": "com.example.sniffmeet",
                               "p12": os.path.join(directory, "client.p12"), "password": "secret",
                               "host": "127.0.0.1", "port": 4433, "ca": os.path.join(directory, "ca.pem")})


@unittest.skipUnless(built_push_bench(), "no push-bench built (swift build, or PUSH_BENCH)")
@unittest.skipUnless(shutil.which("curl"), "curl not installed")
class RealMockTests(unittest.TestCase):
    """`push-bench mock` as own_mock starts it, answering curl."""

    def start(self, *args, **kwargs):
        directory = tempfile.mkdtemp(prefix="own-mock-")
        self.addCleanup(shutil.rmtree, directory, True)
        mock = own_mock.OwnMock(built_push_bench(), directory, *args, **kwargs)
        self.addCleanup(mock.stop)
        self.assertIsNotNone(mock.port, mock.error_text())
        return mock

    def post(self, mock, timed=False):
        """One notification to the mock over HTTP/2 with its client certificate: (status, lowercased headers),
        and with `timed` curl's time from the request sent to the answer received (s)."""
        creds = mock.credentials
        password = own_mock.read(os.path.join(creds, "client.p12.password")).strip()
        done = subprocess.run(
            ["curl", "--http2", "--silent", "--show-error", "--cert-type", "P12",
             "--cert", f"{os.path.join(creds, 'client.p12')}:{password}", "--cacert", os.path.join(creds, "ca.pem"),
             "-H", f"apns-topic: {own_mock.BUNDLE_ID}", "-H", "apns-push-type: alert", "--data", '{"aps":{"alert":"x"}}',
             "--dump-header", "-", "--output", "/dev/null", "--write-out", "\n%{time_pretransfer} %{time_total}",
             f"https://127.0.0.1:{mock.port}/3/device/{TOKEN}"],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.lower().splitlines()
        pretransfer, total = (float(t) for t in lines[-1].split())
        answer = int(lines[0].split()[1]), {line.split(":", 1)[0] for line in lines[1:-1] if ":" in line}
        return answer + (total - pretransfer,) if timed else answer

    def test_production_answers_carry_no_unique_id_on_either_path(self):
        for path in own_mock.PATHS:
            mock = self.start(path)
            status, headers = self.post(mock)
            self.assertEqual(status, 200, path)
            self.assertIn("apns-id", headers, path)
            self.assertNotIn("apns-unique-id", headers, path)
            report = mock.stop()
            self.assertEqual((report["accepted"], report["unique_ids"]), (1, False), report)

    def test_sandbox_answers_carry_a_unique_id(self):
        mock = self.start("fast", production_answers=False)
        status, headers = self.post(mock)
        self.assertEqual(status, 200)
        self.assertIn("apns-unique-id", headers)
        self.assertIs(mock.stop()["unique_ids"], True)

    def test_either_path_answers_no_earlier_than_its_latency_and_reports_it(self):
        for path in own_mock.PATHS:
            mock = self.start(path, latency_ms=300)
            status, headers, waited = self.post(mock, timed=True)
            self.assertEqual(status, 200, path)
            self.assertIn("apns-id", headers, path)
            self.assertGreaterEqual(waited, 0.3, path)
            report = mock.stop()
            self.assertIsNone(own_mock.report_error(report, path, 300), report)
            self.assertEqual(report["accepted"], 1, report)


if __name__ == "__main__":
    unittest.main()
