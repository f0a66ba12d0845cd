#!/usr/bin/env python3
"""Turns h2load output plus `/usr/bin/time -f "%U %S"` output into one JSON line like push-bench's.

Usage: h2load_json.py LABEL H2LOAD_OUTPUT TIME_OUTPUT N [--server-cpu-ticks T --ticks-per-second HZ]
With the server's CPU ticks over the run, server_cpu_us_per_request is reported too.
"""
import argparse
import json
import re

p = argparse.ArgumentParser()
p.add_argument("label")
p.add_argument("out_path")
p.add_argument("time_path")
p.add_argument("n", type=int)
p.add_argument("--server-cpu-ticks", type=int)
p.add_argument("--ticks-per-second", type=int, default=100)
a = p.parse_args()
label, out_path, time_path, n = a.label, a.out_path, a.time_path, a.n
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
    if a.server_cpu_ticks is not None:
        result["server_cpu_us_per_request"] = a.server_cpu_ticks / a.ticks_per_second * 1e6 / n
else:
    result["error"] = (text.strip().splitlines() or ["no output"])[-1]
print(json.dumps(result))
