"""The test lab's webhook receiver (compose.test.yaml, service alert-receiver): keeps every
notification Alertmanager POSTs, and returns them all, in arrival order, on GET. Standard
library only, so it runs in the runner's test image as it is."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PORT = 8080
_received: list[Any] = []
_lock = threading.Lock()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with _lock:
            _received.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def do_GET(self) -> None:
        with _lock:
            body = json.dumps(_received).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads what arrived, not the log."""


if __name__ == "__main__":
    ThreadingHTTPServer(("", PORT), Receiver).serve_forever()
