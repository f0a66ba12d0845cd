#!/usr/bin/env python3
"""A webhook receiver for push-server's tests, and an example of verifying its signatures.

Usage: webhook-receiver.py --secret SECRET [--port N] [--mode ok|500|hang]

Prints "PORT <n>" once listening, then one line per request and per event on stdout:
  REQUEST <status> <events> <signature ok|bad>
  HANG <events>          (a request held without an answer)
  EVENT <id> <type> <new|repeat>
Reads commands on stdin, one a line, each acknowledged with "MODE <mode>":
  mode ok     answer 204
  mode 500    answer 500
  mode hang   read the request and never answer (until the mode changes)
"""
import argparse
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 300

state = {"mode": "ok"}
changed = threading.Condition()
seen = set()
output = threading.Lock()


def say(line):
    with output:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def verify(secret, timestamp, signature, body):
    """True when `signature` is "v1=" + hex HMAC-SHA256(secret, timestamp + "." + body) and the timestamp
    is within five minutes of this clock (an older request is a replay)."""
    try:
        sent = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs(time.time() - sent) > TOLERANCE_SECONDS:
        return False
    expected = "v1=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, signature or "")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ok = verify(self.server.secret, self.headers.get("Webhook-Timestamp"), self.headers.get("Webhook-Signature"), body)
        events = json.loads(body).get("events", []) if ok else []
        with changed:
            mode = state["mode"]
            if mode == "hang":
                say("HANG %d" % len(events))
            while mode == "hang":
                changed.wait()
                mode = state["mode"]
                if mode != "hang":
                    # The client gave up long ago; answering now would only meet a closed socket.
                    self.close_connection = True
                    return
        status = 401 if not ok else (500 if mode == "500" else 204)
        say("REQUEST %d %d %s" % (status, len(events), "ok" if ok else "bad"))
        if status == 204:
            for event in events:
                fresh = event["id"] not in seen
                seen.add(event["id"])
                say("EVENT %s %s %s" % (event["id"], event["type"], "new" if fresh else "repeat"))
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


def commands():
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] == "mode":
            with changed:
                state["mode"] = words[1]
                changed.notify_all()
            say("MODE " + words[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", default="ok")
    arguments = parser.parse_args()
    state["mode"] = arguments.mode
    ThreadingHTTPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.secret = arguments.secret
    threading.Thread(target=commands, daemon=True).start()
    say("PORT %d" % server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
