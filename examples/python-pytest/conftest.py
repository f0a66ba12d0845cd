"""Starts one `pushctl mock-apns` with its control API for the session; resets it before each test."""
import json
import os
import pathlib
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


class MockControl:
    """A small client for the mock's control API (docs/mock-control.yaml)."""

    def __init__(self, url: str):
        self.url = url

    def call(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def add_rule(self, rule) -> int:
        status, body = self.call("POST", "/rules", rule)
        assert status == 201, body
        return body["id"]

    def wait_records(self, count: int, token: str, timeout_ms: int = 10000):
        return self.call("GET", f"/records/wait?count={count}&token={token}&timeout_ms={timeout_ms}")


@pytest.fixture(scope="session")
def mock():
    binary = os.environ.get("PUSHCTL", str(REPO / ".build" / "debug" / "pushctl"))
    directory = tempfile.mkdtemp(prefix="mock-apns-pytest-")
    process = subprocess.Popen(
        [binary, "mock-apns", "--port", "0", "--control-port", "0", "--write-credentials", directory],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        if "listening on" in line:
            break
    else:
        raise RuntimeError("pushctl mock-apns exited before listening")
    with open(os.path.join(directory, "credentials.json")) as handle:
        credentials = json.load(handle)
    yield credentials, MockControl(credentials["control_url"])
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(autouse=True)
def control(mock):
    credentials, control = mock
    status, _ = control.call("POST", "/reset")
    assert status == 204
    return control


@pytest.fixture
def credentials(mock):
    return mock[0]
