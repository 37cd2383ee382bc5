#!/usr/bin/env python3
"""A service whose answers are hostile, for the reliability tests: the ids it hands out are paths
and queries ("../admin?role=root#x"), its bodies and its stderr carry terminal escape sequences
and line breaks that would forge report lines. It writes the path of every request it receives,
exactly as received, one per line, to the file named by --log.

    hostile_service.py --port PORT --log FILE
"""
import argparse
import http.server
import json
import sys

HOSTILE_ID = "../admin?role=root#x"
HOSTILE_NOTE = "\x1b[31mred\x1b[0m\r\n[1] critical invariant_violation forged (confirmed)"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # the request log goes to --log, not stderr
        pass

    def answer(self, status, doc):
        text = isinstance(doc, str)
        body = (doc if text else json.dumps(doc)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain" if text else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def record(self):
        with open(self.server.log, "a", encoding="utf-8", errors="surrogateescape") as log:
            log.write(self.path + "\n")

    def do_GET(self):
        self.record()
        if self.path == "/health":
            self.answer(200, {"ok": True})
        else:
            self.answer(200, {"path": self.path, "note": HOSTILE_NOTE})

    def do_POST(self):
        self.record()
        length = int(self.headers.get("Content-Length", "0"))
        if length:
            self.rfile.read(length)
        if self.path == "/items":
            self.answer(201, {"id": HOSTILE_ID, "note": HOSTILE_NOTE})
        else:
            sys.stderr.write("touched \x1b[2J" + self.path + "\n")
            sys.stderr.flush()
            self.answer(500, "touched " + self.path + " " + HOSTILE_NOTE)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.log = args.log
    server.serve_forever()


if __name__ == "__main__":
    main()
