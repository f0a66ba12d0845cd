"""kalyke-apns (a third-party APNs client from PyPI) against `pushctl mock-apns` with token auth.

kalyke signs its provider token with PyJWT and sends `iat` as a string of digits, as clients that work
against Apple do; it hard-codes Apple's hosts and the system trust store, so the clients here override
its base URL and its HTTP client (to trust the mock's CA), and nothing else. Sends an alert, then a Live
Activity start, update and end, and checks with the mock's control API that each was accepted and
arrived as sent. Exits 0 when all hold; prints what failed otherwise.

Run with the Python of the venv `make conformance-tools` makes (kalyke-apns pinned there); PUSHCTL names
the pushctl binary (default .build/debug/pushctl).
"""
import asyncio
import base64
import json
import os
import pathlib
import ssl
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass

import httpx2
import kalyke

REPO = pathlib.Path(__file__).resolve().parents[2]
TOKEN = "ab" * 32


def client_class(base):
    """`base` (a kalyke client) pointed at the mock: its URL, and an HTTP client trusting the mock's CA."""

    @dataclass(frozen=True)
    class AtMock(base):
        url: str = ""
        ca: str = ""

        @property
        def _base_url(self) -> str:
            return self.url

        def _init_client(self, apns_config):
            headers = apns_config.make_headers()
            headers["authorization"] = f"bearer {self._make_authorization()}"
            return httpx2.AsyncClient(headers=headers, http2=True, verify=ssl.create_default_context(cafile=self.ca))

    return AtMock


def records(control_url: str, token: str):
    with urllib.request.urlopen(f"{control_url}/records?token={token}", timeout=30) as response:
        return json.loads(response.read())["records"]


def claims(authorization: str):
    part = authorization.split(" ", 1)[1].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


async def send_all(credentials):
    url = f"https://{credentials['host']}:{credentials['port']}"
    common = dict(use_sandbox=True, team_id=credentials["team_id"], auth_key_id=credentials["key_id"],
                  auth_key_filepath=credentials["p8"], url=url, ca=credentials["ca"])
    bundle = credentials["bundle_id"]
    apns = client_class(kalyke.ApnsClient)(**common)
    live = client_class(kalyke.LiveActivityClient)(**common)
    ids = [await apns.send_message(
        device_token=TOKEN,
        payload=kalyke.Payload(alert=kalyke.PayloadAlert(title="Rex", body="wants a walk"), sound="default"),
        apns_config=kalyke.ApnsConfig(topic=bundle))]
    live_config = kalyke.LiveActivityApnsConfig(topic=bundle + ".push-type.liveactivity", priority=kalyke.ApnsPriority.IMMEDIATELY)
    for payload in [
        kalyke.LiveActivityPayload(
            event=kalyke.LiveActivityEvent.START, content_state={"km": 0}, attributes_type="WalkAttributes",
            attributes={"dog": "Rex"}, alert=kalyke.PayloadAlert(title="Walk started", body="Rex and Bori")),
        kalyke.LiveActivityPayload(event=kalyke.LiveActivityEvent.UPDATE, content_state={"km": 1.5}),
        kalyke.LiveActivityPayload(event=kalyke.LiveActivityEvent.END, content_state={"km": 3}),
    ]:
        ids.append(await live.send_message(device_token=TOKEN, payload=payload, apns_config=live_config))
    return ids


def check(credentials, ids):
    problems = []
    seen = records(credentials["control_url"], TOKEN)
    if len(seen) != 4:
        return [f"expected 4 records, got {len(seen)}: {seen}"]
    bundle = credentials["bundle_id"]
    expected = [("alert", bundle, None), ("liveactivity", bundle + ".push-type.liveactivity", "start"),
                ("liveactivity", bundle + ".push-type.liveactivity", "update"),
                ("liveactivity", bundle + ".push-type.liveactivity", "end")]
    for record, apns_id, (push_type, topic, event) in zip(seen, ids, expected):
        headers = {h["name"]: h["value"] for h in record["headers"]}
        answer = record["answer"]
        if answer.get("status") != 200:
            problems.append(f"{push_type} {event}: answered {answer}")
        if headers.get("apns-push-type") != push_type or headers.get("apns-topic") != topic:
            problems.append(f"{push_type} {event}: headers {headers}")
        if headers.get("apns-id", apns_id) != apns_id and answer.get("apns_id") not in (None, apns_id):
            problems.append(f"{push_type} {event}: apns-id {apns_id} not the one recorded")
        iat = claims(headers.get("authorization", "bearer x.e30.x")).get("iat")
        if not (isinstance(iat, str) and iat.isdigit()):
            problems.append(f"{push_type} {event}: the token's iat was {iat!r}, not a string of digits: the test no longer covers it")
        aps = json.loads(record["payload"])["aps"]
        if event is not None and (aps.get("event") != event or not isinstance(aps.get("timestamp"), int) or "content-state" not in aps):
            problems.append(f"{event}: aps {aps}")
    return problems


def main() -> int:
    binary = os.environ.get("PUSHCTL", str(REPO / ".build" / "debug" / "pushctl"))
    directory = tempfile.mkdtemp(prefix="mock-apns-kalyke-")
    process = subprocess.Popen(
        [binary, "mock-apns", "--port", "0", "--control-port", "0", "--write-credentials", directory],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in process.stdout:
            if "listening on" in line:
                break
        else:
            print("pushctl mock-apns exited before listening", file=sys.stderr)
            return 1
        with open(os.path.join(directory, "credentials.json")) as handle:
            credentials = json.load(handle)
        try:
            ids = asyncio.run(send_all(credentials))
        except Exception as error:  # kalyke raises the reason APNs answered as an exception class
            print(f"kalyke-apns was refused: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        problems = check(credentials, ids)
        for problem in problems:
            print(problem, file=sys.stderr)
        if not problems:
            print("kalyke-apns: alert and Live Activity start, update, end accepted")
        return 1 if problems else 0
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
