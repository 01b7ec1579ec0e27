"""The clients: the order the libraries run in within a mode, and why a client has no row
for a mode of a transport it speaks (reported as not applicable, never as a zero)."""

from bench_runner.modes.base import Transport

_PTY_DRIVER = "drives interactive PTY sessions only, one per connection (driver.open)"
_NO_PIPELINING = "waits for each reply before the next RPC (no pipelining)"
_PSSH = (
    "parallel-ssh has no port-forwarding API of its own (its tunnel module only reaches an "
    "SSH server through proxy_host), so no tunnel modes"
)

FLOOR_CLIENTS = ("asyncssh", "httpx", "python-ssl")
"""Minimal overhead: what a transport costs with the least a client can add."""
LIBRARIES = (
    "paramiko",
    "openssh",
    "netmiko",
    "scrapli",
    "requests",
    "ncclient",
    "scrapli-netconf",
    "ssh2-python",
    "parallel-ssh-native",
    "parallel-ssh-libssh",
    "scrapli-system",
    "scrapli-paramiko",
    "scrapli-ssh2",
    "scrapli-netconf-system",
    "scrapli-netconf-paramiko",
    "scrapli-netconf-ssh2",
    "scrapligo",
)
"""The libraries people use, in the order they run within a mode (the order they joined the
lab, which every earlier run kept)."""

CLIENT_SCOPE: dict[str, str] = {
    "paramiko": "exec channels only here; its interactive shell is what netmiko drives",
    "openssh": "exec only (ssh user@host cmd); interactive PTY sessions need a pexpect-style "
    "driver, which is what netmiko and scrapli are",
    "netmiko": "drives interactive PTY sessions only, one per connection (ConnectHandler)",
    "scrapli": _PTY_DRIVER,
    "requests": "synchronous, one request at a time per call, no TLS session resumption API",
    "httpx": "no API to offer a saved TLS session (resumption)",
    "python-ssl": "used for TLS session resumption only",
    "scrapli-netconf": _NO_PIPELINING,
    "scrapli-system": _PTY_DRIVER,
    "scrapli-paramiko": _PTY_DRIVER,
    "scrapli-ssh2": _PTY_DRIVER,
    "scrapli-netconf-system": _NO_PIPELINING,
    "scrapli-netconf-paramiko": _NO_PIPELINING,
    "scrapli-netconf-ssh2": _NO_PIPELINING,
    "parallel-ssh-native": _PSSH,
    "parallel-ssh-libssh": _PSSH,
    "scrapligo": "scrapligo's drivers open one PTY shell per connection (no exec channels, no "
    "new channel on a kept connection), and its NETCONF driver waits for each reply before the "
    "next RPC (no pipelining)",
}

UNSUPPORTED_TRANSPORTS: dict[str, frozenset[Transport]] = {
    "parallel-ssh-native": frozenset({Transport.TUNNEL}),
    "parallel-ssh-libssh": frozenset({Transport.TUNNEL}),
}
"""Transports a client has no mode of at all, yet is asked about (listed as not applicable)."""
