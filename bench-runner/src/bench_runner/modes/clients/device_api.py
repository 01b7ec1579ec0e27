"""The device's HTTPS API as every HTTPS client of the lab calls it (pure): the exec path
for commands, the RESTCONF document, the bulk payloads, and the checks of their answers."""

import json
from collections.abc import Sequence
from urllib.parse import quote_plus

from bench_runner.validation import IterationError, first_line

REQUEST_TIMEOUT_S = 60.0
HTTP_OK = 200
RESTCONF_NATIVE_PATH = "/restconf/data/Cisco-IOS-XE-native:native"
RESTCONF_JSON = "application/yang-data+json"


def exec_path(commands: Sequence[str]) -> str:
    """``/admin/exec/cmd1/cmd2``: one path segment per command, spaces as '+', and every
    other reserved character (including '/') percent-encoded."""
    return "/admin/exec/" + "/".join(quote_plus(command, safe="") for command in commands)


def check_restconf(status: int, body: str) -> str:
    """The body of a RESTCONF ``GET`` of the native tree, or IterationError: HTTP 200 and
    an RFC 7951 JSON document whose top-level member is ``Cisco-IOS-XE-native:native``."""
    if status != HTTP_OK:
        raise IterationError(f"restconf: HTTP {status}: {first_line(body)}")
    try:
        document = json.loads(body)
    except ValueError as exc:
        raise IterationError(f"restconf: not JSON: {exc}") from exc
    if not isinstance(document, dict) or "Cisco-IOS-XE-native:native" not in document:
        raise IterationError(f"restconf: no Cisco-IOS-XE-native:native in {body[:80]!r}")
    return body


def bulk_path(size: str) -> str:
    return f"/bulk/{size}"


def check_status(path: str, status: int) -> None:
    if status != HTTP_OK:
        raise IterationError(f"{path}: HTTP {status}")


def check_download(path: str, status: int, received: int, expected: int) -> str:
    """What the iteration returns for validation, or IterationError: HTTP 200 and exactly
    ``expected`` body bytes."""
    check_status(path, status)
    if received != expected:
        raise IterationError(f"{path}: {received} of {expected} bytes")
    return f"{received} bytes"
