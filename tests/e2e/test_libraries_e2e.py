"""Every client library the runner supports, against the real lab at `local` (the smoke plan)."""

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
