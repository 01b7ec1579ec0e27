"""Every client library the runner supports, against the real lab at `local` (the smoke plan)."""

import re
from typing import Any

from conftest import BenchRun

LIBRARIES = {
    "asyncssh",
    "httpx",
    "python-ssl",
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
    # The Go program in the runner's image (modes/clients/scrapligo.py): a binary that is missing or
    # fails fails its modes here, never skipped.
    "scrapligo",
}
# Floor-client modes whose phases are recorded; https/multi-cmd has none (its requests are
# in flight together), the tunnel modes neither (one HTTP exchange through a kept forward).
PHASED_FLOOR_TRANSPORTS = ("ssh/", "https/", "netconf/")
UNPHASED_MODES = {"https/multi-cmd"}

# How a line a client library prints when something went wrong starts: a record of the
# runner's log at WARNING or above (bench_runner/logs.py: "ERROR [paramiko.transport] ...");
# paramiko's transport thread logging with no handler configured (a bare message); a
# traceback (gevent's hub prints one for a greenlet that failed); an exception Python could
# not raise (in a finalizer, in a thread); a warning shown outside the log. The runner's own
# lines never start so: its errors are "error: ...", its warnings "WARNING <what>: ...", its
# tables and progress start with a border or a mode name.
LIBRARY_ERROR_LINE = re.compile(
    r"(?:WARNING|ERROR|CRITICAL) \[[\w.-]+\] "
    r"|Socket exception: "
    r"|Traceback \(most recent call last\):"
    r"|Exception ignored in"
    r"|Exception in thread "
    r"|\S+\.py:\d+: \w*Warning: "
)


def library_error_lines(output: str) -> list[str]:
    """The lines of a run's output (stdout and stderr) that a client library printed about
    a problem."""
    return [line for line in output.splitlines() if LIBRARY_ERROR_LINE.match(line)]


def test_smoke_plan_runs_every_library(smoke_run: BenchRun) -> None:
    assert smoke_run.exit_code == 0, smoke_run.output[-3000:]
    results = smoke_run.results
    assert results["profile"]["name"] == "local"
    assert {m["client"] for m in results["modes"]} >= LIBRARIES
    for mode in results["modes"]:
        label = (mode["mode"], mode["client"], mode["error_messages"])
        assert mode["ok"], label
        assert mode["stats"]["errors"] == 0, label
        assert mode["client_version"] not in ("", "unknown"), (mode["mode"], mode["client"])
    for skipped in results["not_applicable"]:
        assert skipped["reason"], skipped
    for mode in results["modes"]:
        _check_wire_counts(mode)
        _check_phases(mode)


def test_smoke_plan_prints_no_library_error(smoke_run: BenchRun) -> None:
    """Every client closes its connections the way its library expects: a smoke run's
    output holds no library's error line (it once held paramiko's "Socket exception: Bad
    file descriptor (9)" for every scrapli paramiko connection)."""
    assert library_error_lines(smoke_run.output) == []


def test_library_error_lines_are_told_from_the_runners_own() -> None:
    problems = [
        "ERROR [paramiko.transport] Socket exception: Bad file descriptor (9)",
        "WARNING [py.warnings] /usr/lib/python3/dist-packages/x.py:467: ResourceWarning: ...",
        "CRITICAL [asyncssh] [conn=3] Uncaught exception",
        "Socket exception: Bad file descriptor (9)",
        "Traceback (most recent call last):",
        "Exception ignored in: <function Channel.__del__ at 0x7f2a>",
        "Exception in thread Thread-7 (run):",
        "/usr/local/lib/python3.11/site-packages/urllib3/connectionpool.py:1099: "
        "InsecureRequestWarning: Unverified HTTPS request",
    ]
    others = [
        "error: netem at http://device:8181: [Errno -2] Name or service not known",
        "WARNING device /version: unavailable",
        "INFO [asyncssh] [conn=0] Connected to SSH server",
        "netem: profile 'local' kept, as it was before this run",
        "│ ssh/fresh-conn │ paramiko │ Socket exception: Bad file descriptor (9) │",
        "not applicable: tunnel/bulk with parallel-ssh-native: no port-forwarding API",
        "ssh/fresh-conn paramiko      ━━━━━━━━━━━━━━━━━━━━━━ 4/4 0 errors 0:00:06",
        "iteration 2: TimeoutError: no reply within 120 s",
    ]
    assert library_error_lines("\n".join(others + problems)) == problems


def _check_wire_counts(mode: dict[str, Any]) -> None:
    """Every client, library or floor, is counted on the wire: round trips, packets and
    bytes of every measured iteration, and never fewer round trips than the physics."""
    key = (mode["mode"], mode["client"], mode["client_version"])
    wire = mode["wire"]
    assert wire["available"], (key, wire["reason"])
    assert wire["method"] == "af-packet"
    assert wire["capture_drops"] == 0, key
    assert len(wire["per_iteration"]) == mode["stats"]["n"], key
    for counts in wire["per_iteration"]:
        assert counts["round_trips"] >= mode["min_round_trips"], (key, counts)
        assert counts["packets_out"] > 0, (key, counts)
        assert counts["packets_in"] > 0, (key, counts)
        assert counts["bytes_out"] > 0, (key, counts)
        assert counts["bytes_in"] > 0, (key, counts)
        assert counts["segments_in"] >= counts["packets_in"], (key, counts)
    assert wire["p50"]["round_trips"] >= mode["min_round_trips"], key


def _check_phases(mode: dict[str, Any]) -> None:
    """Floor clients record their phases; phases never add up to more than the wall time."""
    key = (mode["mode"], mode["client"])
    phased_floor = (
        mode["client"] in {"asyncssh", "httpx", "python-ssl"}
        and mode["mode"].startswith(PHASED_FLOOR_TRANSPORTS)
        and mode["mode"] not in UNPHASED_MODES
    )
    if phased_floor:
        assert mode["phases"] is not None, key
    if mode["phases"] is None:
        return
    per_iteration = mode["phases"]["per_iteration"]
    assert len(per_iteration) == len(mode["samples_ms"]), key
    for phases, wall_ms in zip(per_iteration, mode["samples_ms"], strict=True):
        assert phases, key
        assert all(value >= 0 for value in phases.values()), (key, phases)
        assert sum(phases.values()) <= wall_ms + 0.01, (key, phases, wall_ms)
