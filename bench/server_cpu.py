#!/usr/bin/env python3
"""Adds a server's CPU over a run to a push-bench client JSON line: server_cpu_us_per_request = the server's
CPU ticks over the run / every request the client sent (warm-up included), as h2load_json.py does for h2load.

usage: server_cpu.py JSON_LINE TICKS TICKS_PER_SECOND"""
import json
import sys

line, ticks, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    result = json.loads(line)
except ValueError:
    print(line)
    sys.exit(0)
sent = int(result.get("n", 0)) + int(result.get("warmup_n", 0))
if sent > 0:
    result["server_cpu_us_per_request"] = round(ticks / hz * 1e6 / sent, 3)
print(json.dumps(result))
