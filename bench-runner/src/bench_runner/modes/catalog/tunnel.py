"""SSH local forwarding (``ssh -L``) to the device's tunnel target, an HTTP server on the
device's ``127.0.0.1:8080``, with four forwarders: asyncssh (floor), the OpenSSH client,
paramiko and ssh2-python. The HTTP side is the same minimal client for all of them, so the
forwarders are what differs. The forward is kept across iterations (opened before the
warm-up, not measured); the RTT probe is on the SSH port, which carries the tunnel."""

from bench_runner.modes.base import NONE, ONE_PER_COMMAND, PerIteration
from bench_runner.modes.row import ModeDefinition, Parameters, Row, plugin

BULK = ModeDefinition(
    name="tunnel/bulk",
    summary=(
        "one download of `size` bytes per iteration (GET /10M, /100M or /1G) through the kept "
        "forward, on a new connection to it (Connection: close); the commands are not used; "
        "the throughput is the size over the wall time"
    ),
    lower_bound=PerIteration(fixed=2),
    argument=(
        "Lower bound: 2 round trips per iteration: the forwarder opens a direct-tcpip channel "
        "for the new connection and must see its confirmation before it may send the request "
        "(RFC 4254 section 7.2), then the request and response; the transfer time on top is "
        "the size over the path's bandwidth (SSH window and cipher, netem's rate)."
    ),
    connections=NONE,
    commands_per_request=None,
    parameters=Parameters.BULK,
)

REQUEST = ModeDefinition(
    name="tunnel/request",
    summary=(
        "per command one small GET / through the kept forward, on one HTTP/1.1 keep-alive "
        "connection through it (opened by the warm-up): the tunnel's counterpart of "
        "https/keep-alive (the same request pattern straight to nginx, over TLS)"
    ),
    lower_bound=ONE_PER_COMMAND,
    argument=(
        "Lower bound: n round trips (request and response per command); the forwarder adds "
        "its own processing, not round trips."
    ),
    connections=NONE,
    commands_per_request=PerIteration(fixed=1),
)

DEFINITIONS = (BULK, REQUEST)

_BULK_BY_PROTOCOL = (
    "Expected: 2 round trips, by the protocol, as for every forwarder (RFC 4254 section "
    "7.2): the direct-tcpip channel confirmed, then the request answered"
)
_ONE_PER_REQUEST = (
    "Expected: n round trips: one exchange per request through the forward, 5 for 5 on the "
    "wire and as added delay (README)."
)

ROWS = (
    Row(
        BULK,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh forward_local_port (ssh -L) kept; per iteration a new "
            "connection through it and one GET /<size> from the device's tunnel target"
        ),
        expected=PerIteration(fixed=2),
        evidence=f"{_BULK_BY_PROTOCOL}; the download adds window adjusts on the wire.",
        session=plugin("asyncssh_tunnel:bulk"),
    ),
    Row(
        REQUEST,
        "asyncssh",
        floor=True,
        description=(
            "asyncssh forward_local_port (ssh -L) kept; one HTTP/1.1 keep-alive "
            "connection through it; per command one small GET / (vs https/keep-alive)"
        ),
        expected=ONE_PER_COMMAND,
        evidence="Expected: n round trips, the lower bound (the connection opened by the warm-up).",
        session=plugin("asyncssh_tunnel:requests"),
    ),
    Row(
        BULK,
        "openssh",
        description=(
            "OpenSSH ssh -N -L (via sshpass) kept; per iteration a new connection "
            "through it and one GET /<size>"
        ),
        expected=PerIteration(fixed=2),
        evidence=(
            f"`ssh -N -L` (sshpass) kept as a child process. {_BULK_BY_PROTOCOL}; the download "
            "itself is bandwidth and window adjusts (54 direction changes on the wire for 10 MB "
            "at 30 ms: flow control, not request/response)."
        ),
        session=plugin("openssh:tunnel_bulk"),
        version=plugin("openssh:version"),
    ),
    Row(
        REQUEST,
        "openssh",
        description=(
            "OpenSSH ssh -N -L (via sshpass) kept; one keep-alive connection through "
            "it; per command one small GET /"
        ),
        expected=ONE_PER_COMMAND,
        evidence=_ONE_PER_REQUEST,
        session=plugin("openssh:tunnel_requests"),
        version=plugin("openssh:version"),
    ),
    Row(
        BULK,
        "paramiko",
        description=(
            "paramiko; one connection kept; per iteration open_channel('direct-tcpip') "
            "to the tunnel target and one GET /<size> on it"
        ),
        expected=PerIteration(fixed=2),
        evidence=(
            "One SSH connection kept; per iteration a new direct-tcpip channel (open_channel) "
            f"and one download on it. {_BULK_BY_PROTOCOL}: open_channel waits for the "
            "confirmation; the wire's 13 for 10 MB at 30 ms add paramiko's window adjusts."
        ),
        session=plugin("paramiko_ssh:tunnel_bulk"),
    ),
    Row(
        REQUEST,
        "paramiko",
        description=(
            "paramiko; one direct-tcpip channel kept (HTTP keep-alive); per command one small GET /"
        ),
        expected=ONE_PER_COMMAND,
        evidence=_ONE_PER_REQUEST,
        session=plugin("paramiko_ssh:tunnel_requests"),
    ),
    Row(
        BULK,
        "ssh2-python",
        description=(
            "ssh2-python (libssh2); one session kept; per iteration direct_tcpip_ex to the "
            "tunnel target and one GET /<size> on it"
        ),
        expected=PerIteration(fixed=2),
        evidence=(
            "One session kept; per iteration direct_tcpip_ex and one download on the channel "
            f"(no local listener, like paramiko's). {_BULK_BY_PROTOCOL}; the download adds "
            "window adjusts on the wire."
        ),
        session=plugin("ssh2_python:tunnel_bulk"),
        version=plugin("ssh2_python:version"),
    ),
    Row(
        REQUEST,
        "ssh2-python",
        description=(
            "ssh2-python (libssh2); one direct-tcpip channel kept (HTTP keep-alive); per "
            "command one small GET /"
        ),
        expected=ONE_PER_COMMAND,
        evidence="Expected: n round trips: one exchange per request on the kept channel.",
        session=plugin("ssh2_python:tunnel_requests"),
        version=plugin("ssh2_python:version"),
    ),
)
