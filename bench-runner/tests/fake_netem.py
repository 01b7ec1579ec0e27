"""A stand-in for netem's control API on 127.0.0.1: the run lock, the profile and its
history, as netem/README.md specifies them, with a ``restart()`` (what a device restart
does to the sidecar). The real API is tested in netem/tests; the runner's end-to-end tests
use the real sidecar."""

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeNetem:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.url = ""
        self.holder: dict[str, Any] | None = None
        self.restart()

    def restart(self, profile: str = "regional") -> None:
        """A new process: a new instance, no lease, its history from `started`."""
        with self.lock:
            self.instance = secrets.token_hex(8)
            self.holder = None
            self.events: list[dict[str, Any]] = []
            self._record("started", None)
            self._record("applied", profile)

    def change(self, event: str, profile: str, since: datetime | None = None) -> None:
        with self.lock:
            self._record(event, profile, since)

    def _record(self, event: str, profile: str | None, since: datetime | None = None) -> None:
        entry = {"generation": len(self.events), "event": event, "profile": profile,
                 "at": datetime.now(UTC).isoformat()}
        if since is not None:
            entry["since"] = since.isoformat()
        self.events.append(entry)

    def state(self) -> dict[str, Any]:
        latest = self.events[-1]
        return {"engine": "nfq", "instance": self.instance, "generation": latest["generation"],
                "profile": {"name": latest["profile"] or "none", "rtt_ms": 30.0}}

    def handle(self, method: str, path: str, headers: dict[str, str],
               body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            token = path.removeprefix("/lock/") if path.startswith("/lock/") else None
            if (method, path) == ("GET", "/profile/history"):
                return 200, {"instance": self.instance, "events": self.events}
            if (method, path) == ("GET", "/profile"):
                return 200, self.state()
            if (method, path) == ("POST", "/lock"):
                if self.holder is not None:
                    return 409, {"detail": {"message": f"held by {self.holder['owner']}"}}
                self.holder = {"token": secrets.token_hex(8), "owner": body["owner"],
                               "ttl_s": body["ttl_s"], "instance": self.instance}
                return 200, self.holder
            if token is not None and method in ("PUT", "DELETE"):
                if self.holder is None or self.holder["token"] != token:
                    return 404, {"detail": {"message": "unknown to this netem instance"}}
                if method == "DELETE":
                    self.holder = None
                return 200, {}
            if method == "PUT" and path.startswith("/profile/"):
                if self.holder is not None \
                        and headers.get("x-netem-lock") != self.holder["token"]:
                    return 423, {"detail": {"message": f"held by {self.holder['owner']}"}}
                self._record("applied", path.removeprefix("/profile/"))
                return 200, self.state()
        return 404, {"detail": "no such route"}


@contextmanager
def serve_fake_netem() -> Iterator[FakeNetem]:
    netem = FakeNetem()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            status, answer = netem.handle(self.command, self.path,
                                          {k.lower(): v for k, v in self.headers.items()}, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        # http.server dispatches on these exact method names.
        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self._answer()

        def do_PUT(self) -> None:
            self._answer()

        def do_DELETE(self) -> None:
            self._answer()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    netem.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield netem
    finally:
        server.shutdown()
        server.server_close()
