# A counter over HTTP whose value lives in a SQLite file the service creates at startup, for the
# model file tests (tests/integration/modelfile/process_test.cpp, tests/cli: prowl explore).
#   python3 counter.py PORT DB
# GET /health, GET /value -> {"value": v}; POST /inc (409 at 3); POST /dec (409 at 0 or less).
# Planted bug: dec from 2 sets the counter to -1.
import json, sqlite3, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
port, path = int(sys.argv[1]), sys.argv[2]
db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
db.execute("CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)")
db.execute("INSERT OR IGNORE INTO counter VALUES (1, 0)")

def value():
    return db.execute("SELECT value FROM counter WHERE id = 1").fetchone()[0]

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def send(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.send(200, {"ok": True} if self.path == "/health" else {"value": value()})
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        v = value()
        if self.path == "/inc" and v < 3:
            v += 1
        elif self.path == "/dec" and v == 2:
            v = -1
        elif self.path == "/dec" and v > 0:
            v -= 1
        else:
            return self.send(409, {"error": "refused", "value": v})
        db.execute("UPDATE counter SET value = ? WHERE id = 1", (v,))
        self.send(200, {"value": v})

print("listening", flush=True)
HTTPServer(("127.0.0.1", port), Handler).serve_forever()
