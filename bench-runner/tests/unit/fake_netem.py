"""A stand-in for netem's control API on 127.0.0.1: the run lock, the profile (named, custom
or cleared) and its history, as netem/README.md specifies them, with a ``restart()`` (what
a device restart does to the sidecar). The real API is tested in netem/tests; the runner's
end-to-end tests use the real sidecar."""

import json
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROFILES = {"local": 0.0, "campus": 2.0, "regional": 30.0}
"""The profiles file: name -> RTT in ms."""
PROFILE_FIELDS = {
    "name",
    "rtt_ms",
    "split",
    "jitter_ms",
    "keep_order",
    "loss_pct",
    "rate_mbit",
    "limit_packets",
    "source",
}
"""What PUT /profile accepts (netem's Profile forbids anything else)."""


class FakeNetem:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.url = ""
        self.holder: dict[str, Any] | None = None
        self.custom: dict[str, dict[str, Any]] = {}
        """Custom profiles (PUT /profile) by name."""
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
        entry = {
            "generation": len(self.events),
            "event": event,
            "profile": profile,
            "at": datetime.now(UTC).isoformat(),
        }
        if since is not None:
            entry["since"] = since.isoformat()
        self.events.append(entry)

    def state(self) -> dict[str, Any]:
        latest = self.events[-1]
        name = latest["profile"] or "none"
        profile = self.custom.get(name) or {"name": name, "rtt_ms": PROFILES.get(name, 0.0)}
        return {
            "engine": "nfq",
            "instance": self.instance,
            "generation": latest["generation"],
            # What netem derives from the values; a custom PUT must not send it back.
            "profile": {**profile, "directions": {"toward_device": {}, "from_device": {}}},
        }

    def profile(self) -> str:
        """The name of the profile in effect."""
        return str(self.state()["profile"]["name"])

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        with self.lock:
            token = path.removeprefix("/lock/") if path.startswith("/lock/") else None
            if (method, path) == ("GET", "/profile/history"):
                return 200, {"instance": self.instance, "events": self.events}
            if (method, path) == ("GET", "/profile"):
                return 200, self.state()
            if (method, path) == ("POST", "/lock"):
                if self.holder is not None:
                    return 409, {"detail": {"message": f"held by {self.holder['owner']}"}}
                self.holder = {
                    "token": secrets.token_hex(8),
                    "owner": body["owner"],
                    "ttl_s": body["ttl_s"],
                    "instance": self.instance,
                }
                return 200, self.holder
            if token is not None and method in ("PUT", "DELETE"):
                if self.holder is None or self.holder["token"] != token:
                    return 404, {"detail": {"message": "unknown to this netem instance"}}
                if method == "DELETE":
                    self.holder = None
                return 200, {}
            if (method, path) == ("GET", "/profiles"):
                profiles = [{"name": name, "rtt_ms": rtt} for name, rtt in PROFILES.items()]
                return 200, {"profiles": profiles}
            if path == "/profile" or path.startswith("/profile/"):
                token = headers.get("x-netem-lock")
                if self.holder is not None and token != self.holder["token"]:
                    return 423, {"detail": {"message": f"held by {self.holder['owner']}"}}
                if self.holder is None and token is not None:
                    return 423, {"detail": {"message": "token unknown to this netem instance"}}
                return self._change(method, path.removeprefix("/profile").removeprefix("/"), body)
        return 404, {"detail": "no such route"}

    def _change(self, method: str, name: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """DELETE /profile (clear), PUT /profile (a custom profile) or PUT /profile/{name}."""
        if (method, name) == ("DELETE", ""):
            self._record("cleared", "none")
        elif (method, name) == ("PUT", ""):
            if not set(body) <= PROFILE_FIELDS:
                return 422, {"detail": f"extra fields: {sorted(set(body) - PROFILE_FIELDS)}"}
            self.custom[body["name"]] = body
            self._record("applied", body["name"])
        elif method == "PUT" and name in PROFILES:
            self._record("applied", name)
        else:
            return 404, {"detail": f"unknown profile {name!r}"}
        return 200, self.state()


@contextmanager
def serve_fake_netem() -> Iterator[FakeNetem]:
    netem = FakeNetem()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            status, answer = netem.handle(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
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
