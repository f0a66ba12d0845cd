#!/usr/bin/env python3
"""B6 peer client: aioapns (cert auth, its default connection pool unless --connections) against the mock.

Prints one JSON line like `push-bench client`. aioapns always dials Apple's host on port 443, so the
protocol class's APNS_SERVER/APNS_PORT are pointed at the mock before the pool opens a connection.
"""
import argparse
import asyncio
import json
import logging
import os
import resource
import ssl
import sys
import tempfile
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection as apns_connection


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--body", required=True, help="JSON body file (same bytes as push-bench payload)")
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("-m", type=int, default=1000)
    parser.add_argument("--topic", default="com.example.sniffmeet")
    parser.add_argument("--token", default="ab" * 32)
    parser.add_argument("--connections", type=int, default=None, help="max_connections (default: aioapns's own)")
    args = parser.parse_args()
    # aioapns's warnings (e.g. "pool is busy") stay on: they go to stderr, which the bench keeps.
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    apns_connection.APNsTLSClientProtocol.APNS_PORT = args.port
    apns_connection.APNsDevelopmentClientProtocol.APNS_SERVER = args.host
    apns_connection.APNsProductionClientProtocol.APNS_SERVER = args.host

    # aioapns wants certificate and key in one PEM file.
    combined = tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False)
    with open(args.cert) as cert, open(args.key) as key:
        combined.write(cert.read() + key.read())
    combined.close()
    with open(args.body) as body:
        message = json.load(body)

    async def run() -> dict:
        context = ssl.create_default_context(cafile=args.ca)
        pool = {} if args.connections is None else {"max_connections": args.connections}
        client = APNs(client_cert=combined.name, topic=args.topic, use_sandbox=True, ssl_context=context, **pool)
        counts = {"accepted": 0, "rejected": 0}

        async def worker(share: int) -> None:
            for _ in range(share):
                result = await client.send_notification(NotificationRequest(
                    device_token=args.token, message=message, push_type=PushType.ALERT))
                counts["accepted" if result.is_successful else "rejected"] += 1

        async def batch(total: int) -> None:
            workers = min(args.m, total)
            await asyncio.gather(*(worker(total // workers + (1 if i < total % workers else 0))
                                   for i in range(workers)))

        await batch(min(args.n, args.m * 2))  # warm-up: connect, settle
        counts.update(accepted=0, rejected=0)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu_start = usage.ru_utime + usage.ru_stime
        start = time.perf_counter()
        await batch(args.n)
        seconds = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu = usage.ru_utime + usage.ru_stime - cpu_start
        return {"bench": "aioapns", "n": args.n, "in_flight": args.m, "seconds": round(seconds, 3),
                "connections": args.connections or "default", "rate": round(counts["accepted"] / seconds, 3), "cpu_us_per_notification": round(cpu * 1e6 / args.n, 3),
                **counts}

    try:
        print(json.dumps(asyncio.run(run())), flush=True)
    finally:
        os.unlink(combined.name)


if __name__ == "__main__":
    sys.exit(main())
