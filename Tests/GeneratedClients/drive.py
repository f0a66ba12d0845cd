"""Drives clients that openapi-python-client generated from docs/openapi.yaml and docs/mock-control.yaml.

Run by the Swift tests GeneratedClientTests (push-server --embedded) and GeneratedMockClientTests
(pushctl mock-apns --control-port), with the generated package's parent directory first on sys.path.
Every request goes through the generated functions and models; any surprise exits non-zero with the reason.

  drive.py push <package> <url> <key>         the README's first push and a profile drop
  drive.py mock-rule <package> <url> <token>  a rule answering the token's next request with Unregistered
  drive.py mock-records <package> <url> <token>  waits for that request's record and checks Apple's answer
"""

import importlib
import inspect
import sys
import typing

import attrs


def check(condition, what):
    if not condition:
        sys.exit(f"generated client: {what}")


def model_fields(model):
    """The fields a generated attrs model declares (its own, not the additional-properties bag)."""
    return {field.name for field in attrs.fields(model)} - {"additional_properties"}


def device_models(register_device):
    """The models register_device's body accepts, by kind; each must carry all the fields of its kind."""
    body = inspect.signature(register_device.sync_detailed).parameters["body"].annotation
    found = {}
    for model in typing.get_args(body) or (body,):
        fields = model_fields(model)
        kind = "push_to_start" if "attributes_type" in fields else "live_activity" if "activity_id" in fields else "apns"
        wanted = {"token", "user_id", "topic", "environment", "kind"} | {
            "push_to_start": {"attributes_type"}, "live_activity": {"activity_id"}}.get(kind, set())
        check(fields == wanted, f"the device model {model.__name__} ({kind}) carries {sorted(fields)}, "
                                f"missing {sorted(wanted - fields)}, extra {sorted(fields - wanted)}")
        # The body allows no other properties, so the model has no bag for them.
        check("additional_properties" not in {field.name for field in attrs.fields(model)},
              f"the device model {model.__name__} takes additional properties")
        check(kind not in found, f"two device models for kind {kind}: {found.get(kind)!r} and {model!r}")
        found[kind] = model
    check(set(found) == {"apns", "push_to_start", "live_activity"}, f"device models by kind: {found!r}")
    return found


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

    # The device body: one model per kind, each carrying every field of its kind (none left to additional
    # properties); the apns one's kind is optional and defaults to apns, as the spec states.
    register_device = api("register_device")
    branches = device_models(register_device)
    device = branches["apns"](token=token, user_id="rex", environment=models.Environment.DEVELOPMENT)
    check(device.kind == "apns", f"the generated device model's kind defaults to {device.kind!r}")
    body = {"token": token, "user_id": "rex", "environment": "development", "kind": "apns"}
    check(device.to_dict() == body, f"device model's body: {device.to_dict()!r}")
    answer = register_device.sync_detailed(client=client, body=device)
    check(answer.status_code == 201, f"register_device: {answer.status_code} {answer.content!r}")
    check(isinstance(answer.parsed, models.Device) and answer.parsed.token == token, f"register_device: {answer.parsed!r}")

    # The push body is one model carrying every property of the request (its rules sit in allOf beside them).
    wanted = {"tokens", "user_id", "payload", "alert", "badge", "sound", "category", "thread_id", "content_available",
              "mutable_content", "data", "push_type", "priority", "expiration", "collapse_id", "topic", "environment"}
    check(model_fields(models.PushRequest) == wanted, f"the push model carries {sorted(model_fields(models.PushRequest))}, "
                                                      f"missing {sorted(wanted - model_fields(models.PushRequest))}")
    alert = models.PushRequestAlertType1(title="Walk time", body="Rex is waiting")
    push = models.PushRequest(user_id="rex", alert=alert)
    check(push.to_dict() == {"user_id": "rex", "alert": {"title": "Walk time", "body": "Rex is waiting"}}, f"push body: {push.to_dict()!r}")
    answer = api("create_push").sync_detailed(client=client, body=push, wait=True)
    check(answer.status_code == 200, f"create_push wait=true: {answer.status_code} {answer.content!r}")
    result = answer.parsed
    check(isinstance(result, models.Push) and result.complete, f"create_push: {result!r}")
    states = [str(item.state) for item in result.notifications]
    check(states == ["accepted"], f"create_push: notification states {states}")
    print(f"push {result.push_id}: accepted")

    # A push-to-start token through its own model (after the push, which goes to the user's apns device).
    start_token = "cd" * 32
    start = branches["push_to_start"](
        token=start_token, user_id="rex", environment=models.Environment.DEVELOPMENT, kind="push_to_start",
        attributes_type="WalkAttributes")
    answer = register_device.sync_detailed(client=client, body=start)
    check(answer.status_code == 201, f"register_device push_to_start: {answer.status_code} {answer.content!r}")
    registered = answer.parsed
    check(isinstance(registered, models.Device) and registered.token == start_token and str(registered.kind) == "push_to_start"
          and registered.attributes_type == "WalkAttributes", f"register_device push_to_start: {registered!r}")
    print("push_to_start: registered")

    # A profile drop: each side reports the other, pointing straight ahead; the second report matches them.
    # The direction is one model carrying x, y and z.
    direction = getattr(models, "ReportDropBodyDirection", None)
    check(direction is not None, "the drop body's direction is no single model: "
                                 f"{[name for name in dir(models) if name.startswith('ReportDropBodyDirection')]}")
    check(model_fields(direction) == {"x", "y", "z"}, f"the direction model carries {sorted(model_fields(direction))}")
    ahead = direction(x=0.0, y=0.0, z=-1.0)
    states = []
    for user_id, peer_id in [("rex", "bori"), ("bori", "rex")]:
        body = models.ReportDropBody(user_id=user_id, peer_id=peer_id, distance_m=0.2, direction=ahead)
        check(body.to_dict()["direction"] == {"x": 0.0, "y": 0.0, "z": -1.0}, f"drop body: {body.to_dict()!r}")
        answer = api("report_drop").sync_detailed(client=client, body=body)
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
