"""The embedded mock APNs of `push-server --embedded`, as the service benches drive it: its control API's address
from the start-up banner, and its knobs (PATCH /knobs)."""
import http.client
import json


def control_url(banner):
    """The control API of the main app's embedded mock (the app a push without a topic goes to), from push-server's
    output: `mock control APIs: sniffmeet http://127.0.0.1:N, dogwalk http://...`; None when it printed none."""
    for line in banner.splitlines():
        if line.startswith("mock control APIs: "):
            return line.split(": ", 1)[1].split(",")[0].split()[1]
    return None


def patch_knobs(url, knobs):
    """PATCH /knobs with `knobs` on the control API at `url`; returns (status, the knobs now in force)."""
    host, port = url.removeprefix("http://").rstrip("/").split(":")
    control = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        control.request("PATCH", "/knobs", body=json.dumps(knobs), headers={"Content-Type": "application/json"})
        answer = control.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")
    finally:
        control.close()


# The embedded mock is Apple's sandbox, which answers every accepted notification with an apns-unique-id (and the
# outbox keeps it, a row each); production APNs sends none. The service benches measure production's answers.
PRODUCTION_ANSWERS = {"unique_ids": False}
