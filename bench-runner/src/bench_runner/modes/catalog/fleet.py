"""``ssh/fleet-show-version``: the same commands on several devices of the lab's fleet, as
"A Tale of Five Python SSH Libraries" (Dinesh Dutt, 2020) timed them with asyncssh, scrapli,
ssh2-python, paramiko and netmiko (clients/fleet.py says how one iteration runs).

Round trips per iteration: the per-host count (one connection with n commands) times
``hosts x repeats`` for the clients that take hosts one after another; for those that take
every host at once the connections overlap, so the path holds one host's count per run
(``hosts_at_once``). Selected by name only: ``all`` leaves it out, it needs a fleet."""

from bench_runner.modes.base import ONCE, PerIteration
from bench_runner.modes.row import ModeDefinition, Parameters, Plugin, Row, plugin

SHOW_VERSION = ModeDefinition(
    name="ssh/fleet-show-version",
    summary=(
        "`repeats` whole runs per iteration, each connecting to every one of `hosts` fleet "
        "devices, running the commands on that one connection and closing it; every output "
        "must carry the hostname of the device it came from"
    ),
    lower_bound=PerIteration(per_command=2, fixed=2),
    argument=(
        "Lower bound: 2n + 2 round trips per host and run (n commands on one connection): TCP, "
        "key exchange, password auth with the first channel open pipelined behind it, and per "
        "command an exec answered (a later command's channel open is one more)."
    ),
    connections=ONCE,
    commands_per_request=ONCE,
    parameters=Parameters.FLEET,
)

DEFINITIONS = (SHOW_VERSION,)

_HOST_RUNNERS = {
    "asyncssh": plugin("asyncssh_exec:fleet_host"),
    "scrapli": plugin("scrapli_ssh:fleet_host"),
    "ssh2-python": plugin("ssh2_python:fleet_host"),
    "paramiko": plugin("paramiko_ssh:fleet_host"),
    "netmiko": plugin("netmiko_ssh:fleet_host"),
}
"""Each client's ``fleet_host(target, commands)``: one device, as the publication drove it."""
_HOSTS_AT_ONCE = ("asyncssh", "scrapli")
"""The asyncio clients, which the publication ran on every host at once."""


def _row(
    client: str,
    description: str,
    expected: PerIteration,
    evidence: str,
    version: Plugin | None = None,
) -> Row:
    return Row(
        SHOW_VERSION,
        client,
        floor=client == "asyncssh",
        description=description,
        expected=expected,
        evidence=evidence,
        session=plugin("fleet:session", host=_HOST_RUNNERS[client]),
        version=version,
        hosts_at_once=client in _HOSTS_AT_ONCE,
        wire_hosts=plugin("fleet:wire_hosts"),
    )


ROWS = (
    _row(
        "asyncssh",
        "asyncssh; per iteration `repeats` runs, each connecting to `hosts` fleet devices "
        "at once (asyncio.gather): connect, exec per command, close",
        PerIteration(per_command=2, fixed=8),
        "Every host at once (asyncio.gather); per host: connect, an exec channel per command, "
        "close. Expected: 2n + 8 round trips per host and run: its fresh-connection count (10 "
        "for one command, README) with the connection's setup paid once.",
    ),
    _row(
        "scrapli",
        "scrapli AsyncIOSXEDriver (asyncssh transport); per iteration `repeats` runs over "
        "`hosts` fleet devices at once: open, send_command per command, close",
        PerIteration(per_command=1, fixed=20),
        "Every host at once, as the publication ran its asyncio driver. The lower bound is "
        "the mode's (an exec client could pay it; a PTY session pays more). Expected: n + 20 "
        "round trips per host and run, scrapli's ssh/pty-fresh count (README).",
        plugin("scrapli_ssh:version", distribution="scrapli", transport="asyncssh"),
    ),
    _row(
        "ssh2-python",
        "ssh2-python (libssh2); per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: connect, exec per command, close",
        PerIteration(per_command=2, fixed=7),
        "Blocking, one host after another. Expected: 2n + 7 round trips per host and run: its "
        "fresh-connection count (9 for one command, counted on the wire, README), the setup "
        "paid once.",
        plugin("ssh2_python:version"),
    ),
    _row(
        "paramiko",
        "paramiko SSHClient; per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: connect, exec_command per command, close",
        PerIteration(per_command=3, fixed=9),
        "One host after another. Expected: 3n + 9 round trips per host and run: its "
        "fresh-connection count (12 for one command, README), the setup paid once, 3 per "
        "command as on its kept connection.",
    ),
    _row(
        "netmiko",
        "netmiko cisco_ios; per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: ConnectHandler, send_command per command, disconnect",
        PerIteration(per_command=1, fixed=20),
        "One host after another. The lower bound is the mode's (a PTY session pays more). "
        "Expected: n + 20 round trips per host and run, its ssh/pty-fresh count (README).",
    ),
)
