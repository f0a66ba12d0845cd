"""The mock APNs in a process of its own (`push-bench mock`), as the service benches run it (bench/b7_service.py):
push-server is pointed at it through an app's `host`, `port` and `ca` (and the client certificate the mock
wrote), so push-server's process holds the service alone and the mock's CPU is measured apart, as B1 measures
the client alone against the same mock.

Two paths, as `push-bench mock` has them: "fast" (`--accept-all`: no validation, rules or records, B1's mock)
and "rules" (the validating path). Either answers after a latency when one is asked (`--latency-ms`), and as
production APNs does (`--no-unique-ids`) unless sandbox answers are asked for. The mock's report (`stop`) says
which path, latency and answers it ran with: `report_error` checks them against what was asked."""
import json
import os
import signal
import subprocess
import time

BUNDLE_ID = "com.example.sniffmeet"   # the bundle id of the client certificate `push-bench mock` writes
PATHS = ("fast", "rules")


def mock_args(path="fast", latency_ms=None, production_answers=True):
    """The options of `push-bench mock` for a path, a latency (ms; none or 0: at once) and the answers' kind."""
    if path not in PATHS:
        raise ValueError(f"mock path must be one of {', '.join(PATHS)}, not {path!r}")
    args = ["--accept-all"] if path == "fast" else []
    if latency_ms:
        args += ["--latency-ms", f"{latency_ms:g}"]
    if production_answers:
        args.append("--no-unique-ids")
    return args


def report_error(report, path="fast", latency_ms=None, production_answers=True):
    """What the mock's report (`OwnMock.stop`) shows it ran otherwise than asked, or None: its path, its latency
    and whether it sent sandbox answers (an `apns-unique-id`)."""
    report = report or {}
    if report.get("unique_ids") is not (not production_answers):
        return f"the mock's report says unique_ids {report.get('unique_ids')}, not {not production_answers}: {report}"
    if report.get("accept_all") is not (path == "fast"):
        return f"the mock's report says accept_all {report.get('accept_all')}, not {path == 'fast'} (the {path} path)"
    if report.get("latency_ms") != float(latency_ms or 0):
        return f"the mock's report says latency_ms {report.get('latency_ms')}, not {float(latency_ms or 0):g}"
    return None


def app_config(port, credentials, name="sniffmeet"):
    """push-server's `apps` entry that sends to the mock on `port`: the client certificate and CA it wrote to
    the directory `credentials`."""
    with open(os.path.join(credentials, "client.p12.password")) as f:
        password = f.read().strip()
    return {"name": name, "topic": BUNDLE_ID, "p12": os.path.join(credentials, "client.p12"), "password": password,
            "host": "127.0.0.1", "port": port, "ca": os.path.join(credentials, "ca.pem")}


def read(path):
    with open(path) as f:
        return f.read()


class OwnMock:
    """`push-bench mock` started in `directory` (its credentials in `directory`/credentials); `port` once it
    listens, None if it did not within `wait_s`."""

    def __init__(self, binary, directory, path="fast", latency_ms=None, production_answers=True, wait_s=30):
        self.credentials = os.path.join(directory, "mock-credentials")
        self.out_path = os.path.join(directory, "mock.out")
        self.err_path = os.path.join(directory, "mock.err")
        self.args = [binary, "mock", "--port", "0", "--write-credentials", self.credentials, "--ignore-stdin"] + \
            mock_args(path, latency_ms, production_answers)
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.process = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        self.port = None
        deadline = time.time() + wait_s
        while self.port is None and self.process.poll() is None and time.time() < deadline:
            for line in read(self.out_path).splitlines():
                if line.startswith("listening "):
                    self.port = int(line.split()[1])
            if self.port is None:
                time.sleep(0.05)   # polls the mock's output file for its banner, up to the deadline

    @property
    def pid(self):
        return self.process.pid

    def error_text(self):
        """The end of the mock's standard error (why it did not start)."""
        return read(self.err_path)[-300:]

    def stop(self):
        """Stops the mock (SIGTERM: it prints its counters and exits) and returns its report (the JSON line it
        printed last: accepted, rejected, unique_ids, cpu_us, ...), or None if it printed none."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for line in reversed(read(self.out_path).splitlines()):
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    return None
        return None
