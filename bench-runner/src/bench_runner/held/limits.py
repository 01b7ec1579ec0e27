"""Which limit stopped a sweep (pure): the errors of the connections that could not be
opened or held, sorted into the limits that produce them, the commonest named.

The texts are what the clients raise (asyncssh, httpx, grpcio through pygnmi, the kernel's
errno strings), matched loosely: a limit is a diagnosis to check, and the errors themselves
are kept beside it."""

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel

EXAMPLES = 3


class HeldLimit(BaseModel):
    connections: int
    """The step's count: the first the sweep could not hold."""
    failed: int
    """Connections that failed, to open or while held."""
    kind: str
    """``client file descriptors``, ``server closed connections in setup``, ``connection
    refused``, ``timeouts``, ``channels per connection``, ``memory``, ``server overloaded``,
    ``unclassified``."""
    detail: str
    errors: dict[str, int]
    """Up to three distinct errors, with how many connections each."""


_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("client file descriptors", ("too many open files", "emfile", "errno 24")),
    ("memory", ("cannot allocate memory", "memoryerror", "enomem", "errno 12")),
    ("channels per connection", ("administratively prohibited", "open failed")),
    ("connection refused", ("connection refused", "econnrefused", "errno 111")),
    ("timeouts", ("timed out", "timeout", "deadline exceeded")),
    (
        "server overloaded",
        ("http 502", "http 503", "http 504", "resource_exhausted", "unavailable"),
    ),
    (
        "server closed connections in setup",
        ("connection lost", "connection reset", "connection closed", "disconnect", "eof"),
    ),
)

_DETAILS = {
    "client file descriptors": "the runner ran out of file descriptors (RLIMIT_NOFILE {nofile})",
    "memory": "a process ran out of memory (the runner's limit or the device's, DEVICE_MEMORY)",
    "channels per connection": "the server refused a channel: sshd's MaxSessions (100 on the "
    "lab's device)",
    "connection refused": "the server refused connections: its listen backlog was full or it "
    "was not listening",
    "timeouts": "connections or operations timed out: the device's CPU or the link could not "
    "keep up with this many",
    "server overloaded": "the server answered that it was overloaded (nginx's upstream, gRPC's "
    "RESOURCE_EXHAUSTED or UNAVAILABLE)",
    "server closed connections in setup": "the server closed connections before they were "
    "set up; for SSH and NETCONF that is sshd's MaxStartups (1000:30:1000 on the lab's device, "
    "10:30:100 by default), for HTTPS nginx's worker_connections (4096 on the lab's device)",
    "unclassified": "no known limit matches; see the errors",
}


def kind_of(error: str) -> str:
    text = error.lower()
    for kind, needles in _KINDS:
        if any(needle in text for needle in needles):
            return kind
    return "unclassified"


def limit_found(connections: int, errors: Sequence[str], nofile: int) -> HeldLimit | None:
    """The limit the errors of a step point to; None for a step without errors."""
    if not errors:
        return None
    kinds = Counter(kind_of(error) for error in errors)
    kind = kinds.most_common(1)[0][0]
    return HeldLimit(
        connections=connections,
        failed=len(errors),
        kind=kind,
        detail=_DETAILS[kind].format(nofile=nofile),
        errors=dict(Counter(errors).most_common(EXAMPLES)),
    )
