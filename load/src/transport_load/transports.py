"""The load transports (pure: the CLI reads it without importing Locust).

Each is one Locust user class; ``name`` on every request is the bench mode's name, the
request type the transport key below (the two NETCONF framings share their mode's name)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class LoadTransport:
    key: str
    user_class: str
    mode: str
    client: str
    """The client library (its version is added at run time)."""
    what: str


TRANSPORTS: dict[str, LoadTransport] = {
    t.key: t
    for t in (
        LoadTransport(
            "ssh-fresh",
            "SshFreshUser",
            "ssh/fresh-conn",
            "paramiko",
            "a new SSH connection per operation: TCP, key exchange, password, exec, close",
        ),
        LoadTransport(
            "ssh-reuse",
            "SshReuseUser",
            "ssh/reuse-conn",
            "paramiko",
            "one SSH connection per user; a new exec channel per operation",
        ),
        LoadTransport(
            "ssh-fresh-libssh2",
            "SshFreshLibssh2User",
            "ssh/fresh-conn",
            "parallel-ssh",
            "ssh-fresh with parallel-ssh's native client (libssh2 through ssh2-python)",
        ),
        LoadTransport(
            "ssh-reuse-libssh2",
            "SshReuseLibssh2User",
            "ssh/reuse-conn",
            "parallel-ssh",
            "ssh-reuse with parallel-ssh's native client (libssh2 through ssh2-python)",
        ),
        LoadTransport(
            "ssh-pty",
            "SshPtyUser",
            "ssh/pty-reuse",
            "paramiko",
            "one SSH connection per user; per operation a PTY shell: prompt, terminal "
            "length 0, terminal width 511, the command, exit",
        ),
        LoadTransport(
            "https-keepalive",
            "HttpsKeepAliveUser",
            "https/keep-alive",
            "geventhttpclient",
            "FastHttpUser, one keep-alive connection per user, GET /admin/exec/<command>",
        ),
        LoadTransport(
            "https-fresh",
            "HttpsFreshUser",
            "https/fresh-conn",
            "geventhttpclient",
            "FastHttpUser with Connection: close: a new TCP + TLS connection per operation",
        ),
        LoadTransport(
            "h3-keepalive",
            "H3KeepAliveUser",
            "h3/keep-alive",
            "aioquic",
            "HTTP/3: one QUIC connection per user, GET /admin/exec/<command> per operation",
        ),
        LoadTransport(
            "h3-fresh",
            "H3FreshUser",
            "h3/fresh-conn",
            "aioquic",
            "HTTP/3: a new QUIC connection per operation: one handshake (QUIC + TLS 1.3), "
            "GET, close",
        ),
        LoadTransport(
            "h3-resumed",
            "H3ResumedUser",
            "h3/resumed",
            "aioquic",
            "HTTP/3: a new QUIC connection per operation resuming the newest session ticket "
            "(no early data): a handshake without certificate, GET, close",
        ),
        LoadTransport(
            "restconf",
            "RestconfUser",
            "https/restconf-get",
            "geventhttpclient",
            "FastHttpUser, keep-alive, GET /restconf/data/Cisco-IOS-XE-native:native (JSON)",
        ),
        LoadTransport(
            "gnmi-get",
            "GnmiGetUser",
            "gnmi/reuse-conn",
            "grpcio",
            "gNMI: one channel per user, one unary Get of an interface's configuration per "
            "operation",
        ),
        LoadTransport(
            "gnmi-fresh",
            "GnmiFreshUser",
            "gnmi/fresh-conn",
            "grpcio",
            "gNMI: a new channel per operation: TCP, TLS, HTTP/2 preface and SETTINGS, Get, close",
        ),
        LoadTransport(
            "gnmi-stream",
            "GnmiStreamUser",
            "gnmi/stream",
            "grpcio",
            "gNMI: one STREAM SAMPLE subscription per user; per update received, its lag "
            "(receive time - the device's timestamp)",
        ),
        LoadTransport(
            "netconf-1.1",
            "Netconf11User",
            "netconf/reuse-session",
            "paramiko",
            "one NETCONF session per user (paramiko subsystem channel, chunked framing), "
            "one <get> per operation",
        ),
        LoadTransport(
            "netconf-1.0",
            "Netconf10User",
            "netconf/reuse-session",
            "paramiko",
            "the same with end-of-message framing (]]>]]>)",
        ),
    )
}

MAX_DURATION_S = 3600
"""The longest any load run or web UI test lasts: every run stops by itself."""

COMMAND = "show version"
"""What the CLI transports run unless a run names another (``--command``)."""
NETCONF_REPLY_BYTES = 1024

GNMI_INTERFACE = "GigabitEthernet1"
"""An interface every device of the lab's cisco_iosxe seed has."""
GNMI_GET_PATH = f"/interfaces/interface[name={GNMI_INTERFACE}]/config"
GNMI_STREAM_PATH = f"/interfaces/interface[name={GNMI_INTERFACE}]/state/counters/in-octets"
"""One leaf: one notification per sample, so a stream's expected rate is 1 / interval."""
GNMI_INTERVAL_MS = 100.0
"""A gnmi-stream user's sample interval unless a run names another."""
GNMI_MIN_INTERVAL_MS = 1.0
"""The lab's device accepts down to 1 ms (real devices: seconds)."""


def parse_transports(text: str) -> list[LoadTransport]:
    """``all`` or a comma-separated list of keys."""
    if text.strip() in ("", "all"):
        return list(TRANSPORTS.values())
    keys = [key.strip() for key in text.split(",") if key.strip()]
    unknown = [key for key in keys if key not in TRANSPORTS]
    if unknown:
        raise ValueError(
            f"unknown transport(s) {', '.join(unknown)}; known: {', '.join(TRANSPORTS)}"
        )
    return [TRANSPORTS[key] for key in dict.fromkeys(keys)]


def parse_command(text: str) -> str:
    """One CLI command line: printable, a single line, at most 1024 bytes."""
    command = text.strip()
    if not command or not command.isprintable() or len(command.encode()) > 1024:
        raise ValueError(f"command must be one printable line of 1..1024 bytes, got {text!r}")
    return command


def parse_intervals(text: str) -> list[float]:
    """Sample intervals in ms (``1000,100,10``), each at least the device's 1 ms floor."""
    intervals = [float(item) for item in text.split(",") if item.strip()]
    if not intervals or any(not GNMI_MIN_INTERVAL_MS <= ms <= 3_600_000 for ms in intervals):
        raise ValueError(f"sample intervals must be 1 .. 3600000 ms, got {text!r}")
    return list(dict.fromkeys(intervals))


def parse_steps(text: str) -> list[int]:
    steps = [int(step) for step in text.split(",") if step.strip()]
    if not steps or any(step < 1 for step in steps):
        raise ValueError(f"steps must be positive user counts, got {text!r}")
    return steps
