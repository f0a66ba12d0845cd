"""WalkNotifier (aioapns) against `pushctl mock-apns`, programmed through the control API."""
import asyncio
import base64
import json

from notifier import WalkNotifier, make_client

PHONE = "ab" * 32
TABLET = "cd" * 32
WATCH = "ef" * 32


def answers(control, token):
    """What the mock answered each request for `token`, in order: status, reason and timestamp_ms (when rejected)."""
    status, body = control.call("GET", f"/records?token={token}")
    assert status == 200, body
    return [{key: r["answer"][key] for key in ("status", "reason", "timestamp_ms") if key in r["answer"]}
            for r in body["records"]]


def run(credentials, user_tokens, *steps):
    """Runs each step (an async function of the notifier) on one client, then closes it."""
    async def main():
        client = make_client(p8_file=credentials["p8"], key_id=credentials["key_id"],
                             team_id=credentials["team_id"], topic=credentials["bundle_id"],
                             host=credentials["host"], port=credentials["port"], ca_file=credentials["ca"])
        notifier = WalkNotifier(client, user_tokens)
        results = [await step(notifier) for step in steps]
        client.pool.close()
        return results
    return asyncio.run(main())


def test_every_device_gets_the_reminder_exactly_as_sent(credentials, control):
    [report] = run(credentials, {"mina": [PHONE, TABLET]}, lambda n: n.remind("mina", "Rex"))
    assert report["delivered"] == [PHONE, TABLET]
    status, body = control.wait_records(1, PHONE)
    assert status == 200
    record = body["records"][0]
    sent = json.dumps({"aps": {"alert": "Time for a walk with Rex", "category": "WALK_REMINDER"}}).encode()
    assert base64.b64decode(record["payload_base64"]) == sent
    headers = {header["name"]: header["value"] for header in record["headers"]}
    assert headers["apns-topic"] == credentials["bundle_id"]
    assert headers["apns-push-type"] == "alert"
    assert headers["authorization"].startswith("bearer ")
    assert record["answer"]["status"] == 200


def test_unregistered_tokens_are_removed_and_throttled_ones_kept(credentials, control):
    control.add_rule({"match": {"token": TABLET}, "answer": {"reason": "Unregistered", "timestamp_ms": 1700000000000}})
    control.add_rule({"match": {"token": WATCH}, "answer": {"reason": "TooManyRequests"}, "times": 1})
    tokens = {"mina": [PHONE, TABLET, WATCH]}
    first, second = run(credentials, tokens, lambda n: n.remind("mina", "Rex"), lambda n: n.remind("mina", "Rex"))
    assert first == {"delivered": [PHONE], "removed": [TABLET], "failed": [WATCH]}
    assert second["delivered"] == [PHONE, WATCH]
    assert tokens["mina"] == [PHONE, WATCH]
    # Removed and kept for the reasons the mock gave: 410 Unregistered (with its timestamp), then one 429.
    assert answers(control, TABLET) == [{"status": 410, "reason": "Unregistered", "timestamp_ms": 1700000000000}]
    assert answers(control, WATCH) == [{"status": 429, "reason": "TooManyRequests", "timestamp_ms": None}, {"status": 200}]


def test_goaway_mid_test_then_a_new_connection(credentials, control):
    async def goaway(_):
        status, body = control.call("POST", "/goaway", {"reason": "Shutdown"})
        assert status == 200 and body["connections"] == 1

    async def remind(notifier):
        return await notifier.remind("mina", "Rex")

    first, _, second = run(credentials, {"mina": [PHONE]}, remind, goaway, remind)
    assert first["delivered"] == [PHONE] and second["delivered"] == [PHONE]
    status, body = control.wait_records(2, PHONE)
    assert status == 200
    assert len({record["connection"] for record in body["records"]}) == 2


def test_fault_knobs_apply_at_once(credentials, control):
    status, knobs = control.call("PATCH", "/knobs", {"rate_503": 1})
    assert status == 200 and knobs["rate_503"] == 1
    [report] = run(credentials, {"mina": [PHONE]}, lambda n: n.remind("mina", "Rex"))
    assert report == {"delivered": [], "removed": [], "failed": [PHONE]}
    # It failed on the knob's answer, every attempt the client made: 503 ServiceUnavailable.
    seen = answers(control, PHONE)
    assert seen and all(answer == {"status": 503, "reason": "ServiceUnavailable", "timestamp_ms": None} for answer in seen), seen


def test_a_wait_for_records_that_never_come_times_out(control):
    status, body = control.wait_records(1, WATCH, timeout_ms=100)
    assert status == 408
    assert body["error"]["code"] == "timeout" and body["count"] == 0


def test_bad_control_requests_get_400(control):
    status, body = control.call("POST", "/rules", {"answer": {"reason": "NoSuchReason"}})
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert "NoSuchReason" in body["error"]["message"], body
    assert control.call("GET", "/rules")[1]["rules"] == []
