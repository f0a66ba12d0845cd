#!/usr/bin/env python3
"""Turns h2load output plus `/usr/bin/time -f "%U %S"` output into one JSON line like push-bench's."""
import json
import re
import sys

label, out_path, time_path, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text = open(out_path).read()
finished = re.search(r"finished in ([\d.]+)(ms|s), ([\d.]+) req/s", text)
done = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored", text)
codes = re.search(r"status codes: (\d+) 2xx, \d+ 3xx, (\d+) 4xx, (\d+) 5xx", text)
cpu = [float(x) for x in open(time_path).read().split()[-2:]]
result = {"bench": label, "n": n}
if finished and done and int(done.group(1)) > 0:
    seconds = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
    result.update(seconds=seconds, rate=float(finished.group(3)), succeeded=int(done.group(1)),
                  failed=int(done.group(2)), errored=int(done.group(3)),
                  status_2xx=int(codes.group(1)) if codes else None,
                  cpu_us_per_notification=(cpu[0] + cpu[1]) * 1e6 / n)
else:
    result["error"] = (text.strip().splitlines() or ["no output"])[-1]
print(json.dumps(result))
