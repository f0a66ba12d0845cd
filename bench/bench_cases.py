"""The cases bench/run.sh records, by selection (BENCH_ONLY), so that bench/summarize.py can name every case
of the selection that is missing from bench/raw.jsonl or was skipped: either makes the run invalid.

Keep in step with bench/run.sh and bench/cluster.sh: a case added there and not here is still judged when it
ran, but its absence would go unnoticed."""

# BENCH_ONLY empty: everything before the service cases (mock, client, peers, proxies).
CLIENT_AND_MOCK = [
    "B1.client", "B1.client-batch", "B1.h2load-mock",
    "B2.c2", "B2.c4",
    "B3.p100", "B3.p1024", "B3.p4096",
    "B6.client", "B6.aioapns",
    "B12.direct", "B12.tinyproxy", "B12.danted", "B12.danted-nodelay",
    "B1.h2load-nghttpd", "B1.client-nghttpd", "B1.client-batch-nghttpd",
    "B5.client-mock-validating", "B5.client-nghttpd",
    "B5.h2load-mock", "B5.h2load-nghttpd",
    "B4.client",
]
# BENCH_ONLY empty or b7: the service end to end (B7.budget: one B7 run under perf, by stage; B7H: half of
# B7's rate, the mock at 40 ms and at once; B7.inflight-100: B7 at the in-flight bound of make chaos-kills).
SERVICE = ["B7", "B7.budget", "B7H.40ms", "B7H.0ms", "B7.inflight-100", "B7L.100000", "B7L.1000000"]
# BENCH_ONLY empty or cluster: the stores, drops, and the PostgreSQL cases of bench/cluster.sh.
STORES = [
    "B8.store", "B8.push", "B9.drops-memory", "B9.drops-sqlite",
    "B10.pg-w1", "B10.pg-w3",
    "B11.sqlite-1", "B11.pg-1", "B11.pg-2", "B11.pg-3",
    "B9.drops-postgres-3",
]

# BENCH_ONLY main: B1's alternating rounds, then B7 and its budget (the service beside the client alone).
MAIN = ["B1.client", "B1.client-batch", "B1.h2load-mock", "B7", "B7.budget"]
# BENCH_ONLY b7h: B7, then B7H at half its rate (latency under normal load).
B7H = ["B7", "B7H.40ms", "B7H.0ms"]

SELECTIONS = {
    "": CLIENT_AND_MOCK + SERVICE + STORES,
    "b7": SERVICE,
    "cluster": STORES,
    "main": MAIN,
    "b7h": B7H,
}


def expected(selection):
    """The cases a run of `selection` (BENCH_ONLY's value, "" for all) records; KeyError for an unknown one."""
    return list(SELECTIONS[selection])
