"""Drives clients that openapi-python-client generated from docs/openapi.yaml and docs/mock-control.yaml.

Run by the Swift tests GeneratedClientTests (push-server --embedded) and GeneratedMockClientTests
(pushctl mock-apns --control-port), with the generated package's parent directory first on sys.path.
Every request goes through the generated functions and models; any surprise exits non-zero with the reason.

  drive.py push <package> <url> <key>         the README's first push and a profile drop
  drive.py mock-rule <package> <url> <token>  a rule answering the token's next request with Unregistered
  drive.py mock-records <package> <url> <token>  waits for that request's record and checks Apple's answer
"""

import importlib
import sys


def check(condition, what):
    if not condition:
        sys.exit(f"generated client: {what}")


def first_push(package, url, key):
    client_module = importlib.import_module(f"{package}.client")
    api = lambda name: importlib.import_module(f"{package}.api.default.{name}")  # noqa: E731
    models = importlib.import_module(f"{package}.models")
    client = client_module.AuthenticatedClient(base_url=url, token=key, raise_on_unexpected_status=True)
    token = "ab" * 32

    for user_id, name, dog in [("rex", "Mina", "Rex"), ("bori", "Jun", "Bori")]:
        answer = api("put_user").sync_detailed(user_id, client=client, body=models.ProfileCard(name=name, dog_name=dog))
        check(answer.status_code in (200, 201), f"put_user {user_id}: {answer.status_code} {answer.content!r}")
        check(isinstance(answer.parsed, models.User) and answer.parsed.dog_name == dog, f"put_user: {answer.parsed!r}")

    # The device body's apns branch: kind is optional and defaults to apns, as the spec states.
    device = models.RegisterDeviceBodyType0()
    check(device.kind == "apns", f"the generated device model's kind defaults to {device.kind!r}")
    device["token"], device["user_id"], device["environment"] = token, "rex", "development"
    answer = api("register_device").sync_detailed(client=client, body=device)
    check(answer.status_code == 201, f"register_device: {answer.status_code} {answer.content!r}")
    check(isinstance(answer.parsed, models.Device) and answer.parsed.token == token, f"register_device: {answer.parsed!r}")

    push = models.PushRequest(user_id="rex", alert=models.PushRequestAlertType1.from_dict({"title": "Walk time", "body": "Rex is waiting"}))
    answer = api("create_push").sync_detailed(client=client, body=push, wait=True)
    check(answer.status_code == 200, f"create_push wait=true: {answer.status_code} {answer.content!r}")
    result = answer.parsed
    check(isinstance(result, models.Push) and result.complete, f"create_push: {result!r}")
    states = [str(item.state) for item in result.notifications]
    check(states == ["accepted"], f"create_push: notification states {states}")
    print(f"push {result.push_id}: accepted")

    # A profile drop: each side reports the other; the second report matches them.
    states = []
    for user_id, peer_id in [("rex", "bori"), ("bori", "rex")]:
        answer = api("report_drop").sync_detailed(
            client=client, body=models.ReportDropBody(user_id=user_id, peer_id=peer_id, distance_m=0.2))
        check(answer.status_code in (200, 201, 202), f"report_drop {user_id}: {answer.status_code} {answer.content!r}")
        check(isinstance(answer.parsed, models.DropResult), f"report_drop: {answer.parsed!r}")
        states.append(answer.parsed.state)
    check(states[-1] == "matched", f"drop states {states}")
    requests = answer.parsed.mate_requests
    pairs = {(r.sender_id, r.recipient_id) for r in requests}
    check(pairs == {("rex", "bori"), ("bori", "rex")}, f"mate requests {requests!r}")
    print(f"drop: {' then '.join(states)}, {len(requests)} mate requests")


def mock_rule(package, url, token):
    client = importlib.import_module(f"{package}.client").Client(base_url=url, raise_on_unexpected_status=True)
    models = importlib.import_module(f"{package}.models")
    add_rule = importlib.import_module(f"{package}.api.default.add_rule")
    list_rules = importlib.import_module(f"{package}.api.default.list_rules")
    rule = models.Rule(match=models.RuleMatch(token=token), answer=models.RuleAnswer(reason="Unregistered"), times=1)
    answer = add_rule.sync_detailed(client=client, body=rule)
    check(answer.status_code == 201, f"add_rule: {answer.status_code} {answer.content!r}")
    listed = list_rules.sync(client=client)
    check(isinstance(listed, models.ListRulesResponse200), f"list_rules: {listed!r}")
    check([rule.to_dict().get("match", {}).get("token") for rule in listed.rules] == [token], f"list_rules: {listed!r}")
    print("rule added")


def mock_records(package, url, token):
    client = importlib.import_module(f"{package}.client").Client(base_url=url, raise_on_unexpected_status=True)
    models = importlib.import_module(f"{package}.models")
    wait = importlib.import_module(f"{package}.api.default.wait_for_records")
    answer = wait.sync_detailed(client=client, count=1, timeout_ms=10000, token=token)
    check(answer.status_code == 200 and isinstance(answer.parsed, models.Records), f"wait_for_records: {answer.status_code} {answer.content!r}")
    record = answer.parsed.records[0]
    check(record.token == token and record.answer.status == 410 and record.answer.reason == "Unregistered",
          f"record: {record!r}")
    print(f"record: {record.answer.status} {record.answer.reason}")


if __name__ == "__main__":
    command, package, url, argument = sys.argv[1:5]
    {"push": first_push, "mock-rule": mock_rule, "mock-records": mock_records}[command](package, url, argument)
