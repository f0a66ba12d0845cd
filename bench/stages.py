#!/usr/bin/env python3
"""B7's cost budget per stage: which stage of the service each profile sample of push-server belongs to.

A sample is a stack of frames (folded: `frame;frame;...;frame COUNT`, outermost first, as perf's stackcollapse
script writes them, names demangled by `swift demangle --simplified`). Its stage is that of the innermost frame
that a stage's patterns recognize: the most specific owner, so the store's claim inside the worker counts as
claim, metrics recorded during a completion as metrics, and a libsqlite3, libnghttp2, libc or kernel frame
as whatever called it. A stack with no recognized frame is "other". Within one frame, the stages are tried in
the order of STAGES.

The benches run the mock APNs in its own process (bench/own_mock.py), so none of its work should be in
push-server's profile; the "mock" stage recognizes its code all the same (a profile of `push-server --embedded`
has it) and is reported apart, since a real deployment does not pay it.

usage: stages.py fold PERF_DATA > FOLDED           perf script's stackcollapse, demangled
       stages.py budget FOLDED RESULT_LINE        one JSON line: RESULT_LINE (b7_service.py's) with the budget
       stages.py table FOLDED [CPU_US]             the budget as text (bench/profile-B7.txt)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

# (stage, patterns); a frame is searched with each pattern (re.search) in this order.
STAGES = [
    # The embedded mock: its HTTP/2 server (the only one in push-server: the API is HTTP/1.1), its rules,
    # records, token checks and delayed answers, its control and channel listeners.
    ("mock", [r"MockAPNS", r"HTTP2Server", r"\bMock[A-Z]\w*\."]),
    # Metrics and webhooks: counters and histograms, the /metrics page and the store's gauges it reads,
    # webhook events and their deliveries.
    ("webhooks and metrics", [r"ServiceMetrics", r"Metrics\.", r"metricsText", r"connectionMetrics",
                              r"StoreGauges", r"Webhook", r"OutboxRepository\.(counts|oldestPendingEnqueuedAt|depth)\b"]),
    # Storing a push's notifications: the outbox bound's reads beside the pushes, and the insert.
    ("enqueue", [r"OutboxRepository\.enqueue\b", r"OutboxWriter", r"OutboxAdmission", r"admitToOutbox",
                 r"OutboxRepository\.pendingCounts\b", r"OutboxRepository\.insert\b"]),
    # Claiming rows and turning them into sends for the client (the worker's claim loop and launch).
    ("claim", [r"OutboxRepository\.claim\b", r"OutboxRepository\+Claim", r"OutboxWorker\.(run|launch|split|hold|renewHeld)\b",
               r"OutboxRepository\.renewLeases\b", r"PushSenders\."]),
    # Recording outcomes: the worker consuming the client's answers, and the store's complete.
    ("completion", [r"OutboxRepository\.(complete|completeRetry|reportEnded)\b",
                    r"OutboxWorker\.(consume|apply|finished|flush|account|invalidate|expired)\b"]),
    # The APNs client: its API, dispatcher, pool, token signing and HTTP/2 client connections (nghttp2 and
    # TLS under them count here too, being called from these frames).
    ("client", [r"APNSClient", r"APNSDispatcher", r"APNSPool", r"APNSSend", r"APNSBatchSink", r"APNSTokenProvider",
                r"HTTP2Client", r"SwappableSender"]),
    # The API: the HTTP/1.1 server, routing, authentication, request parsing and answer encoding.
    ("HTTP + JSON", [r"PushAPI", r"HTTPServer", r"HTTPResponder", r"APIRequest", r"APIRouter", r"APIKey",
                     r"JSONFields", r"PushRequest", r"PushJSON", r"RequestGate", r"PushServer\.serve\b"]),
]
# The order of the budget's rows: the service's stages, what no pattern recognized, then the mock.
ORDER = ["HTTP + JSON", "enqueue", "claim", "client", "completion", "webhooks and metrics", "other", "mock"]
_COMPILED = [(stage, [re.compile(p) for p in patterns]) for stage, patterns in STAGES]


def frame_stage(frame):
    """The stage a frame's name belongs to, or None."""
    for stage, patterns in _COMPILED:
        if any(p.search(frame) for p in patterns):
            return stage
    return None


def stage_of(frames):
    """The stage of a stack (frames outermost first): its innermost recognized frame's, else "other"."""
    for frame in reversed(frames):
        stage = frame_stage(frame)
        if stage:
            return stage
    return "other"


def parse(lines):
    """(frames outermost first, count) of each folded line; the first frame, the thread's name, is dropped."""
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        stack, _, count = line.rpartition(" ")
        try:
            n = int(count)
        except ValueError:
            continue
        yield stack.split(";")[1:], n


def attribute(lines):
    """Samples per stage (every stage of ORDER present) and, for "other", samples per innermost named frame."""
    per_stage = {stage: 0 for stage in ORDER}
    other = collections.Counter()
    for frames, n in parse(lines):
        stage = stage_of(frames)
        per_stage[stage] += n
        if stage == "other":
            named = [f for f in frames if f and f != "[unknown]"]
            other[named[-1] if named else "[unknown]"] += n
    return per_stage, other


def budget(per_stage, cpu_us):
    """Each stage's share of the samples and µs of CPU per notification (share × `cpu_us`), the service's
    total without the mock, and the mock's."""
    total = sum(per_stage.values())
    share = {stage: (per_stage[stage] / total if total else 0.0) for stage in ORDER}
    us = {stage: share[stage] * cpu_us for stage in ORDER}
    return {"samples": total, "stage_samples": dict(per_stage), "stage_share": share, "stage_us": us,
            "service_us": sum(v for stage, v in us.items() if stage != "mock"), "mock_us": us["mock"],
            "process_us": cpu_us}


def fold(perf_data):
    """The demangled folded stacks of a perf.data file (perf's stackcollapse script reads ./perf.data)."""
    directory = tempfile.mkdtemp(prefix="stages-")
    try:
        os.symlink(os.path.abspath(perf_data), os.path.join(directory, "perf.data"))
        folded = subprocess.run(["perf", "script", "report", "stackcollapse"], cwd=directory, capture_output=True,
                                text=True, check=True).stdout
    finally:
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)
    return subprocess.run(["swift", "demangle", "--simplified"], input=folded, capture_output=True, text=True,
                          check=True).stdout


def result_line(folded_lines, result):
    """b7_service.py's result with the budget of its profile: `budget`, and `other_frames`, the innermost
    named frames of the unrecognized samples (the largest ten). Too few samples is the run's error."""
    per_stage, other = attribute(folded_lines)
    cpu = result.get("cpu_us_per_notification")
    out = dict(result)
    out.pop("rss_mb_by_tenth", None)
    if not isinstance(cpu, (int, float)):
        out.setdefault("error", "no CPU per notification to divide")
        return out
    out["budget"] = budget(per_stage, cpu)
    out["other_frames"] = other.most_common(10)
    if out["budget"]["samples"] < 200 and not out.get("error"):
        out["error"] = f"only {out['budget']['samples']} samples in the profile"
    return out


def table(folded_lines, cpu_us=None):
    """The budget as text: samples and share per stage, and µs per notification when `cpu_us` is given."""
    per_stage, other = attribute(folded_lines)
    b = budget(per_stage, cpu_us or 0.0)
    rows = [f"{'stage':<22} {'samples':>8} {'share':>7}" + (f" {'µs/notif':>9}" if cpu_us else "")]
    for stage in ORDER:
        rows.append(f"{stage:<22} {per_stage[stage]:>8} {b['stage_share'][stage]:>7.1%}"
                    + (f" {b['stage_us'][stage]:>9.1f}" if cpu_us else ""))
    if cpu_us:
        rows.append(f"{'service (without mock)':<22} {'':>8} {'':>7} {b['service_us']:>9.1f}")
    rows.append("")
    rows.append("other, by innermost named frame:")
    rows += [f"  {n:>6}  {frame[:150]}" for frame, n in other.most_common(10)]
    return "\n".join(rows)


def main(argv):
    if len(argv) == 3 and argv[1] == "fold":
        sys.stdout.write(fold(argv[2]))
        return 0
    if len(argv) == 4 and argv[1] == "budget":
        with open(argv[2]) as f:
            lines = f.readlines()
        print(json.dumps(result_line(lines, json.loads(argv[3]))))
        return 0
    if len(argv) in (3, 4) and argv[1] == "table":
        with open(argv[2]) as f:
            print(table(f.readlines(), float(argv[3]) if len(argv) == 4 else None))
        return 0
    print("usage:" + __doc__.split("usage:")[1].rstrip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
