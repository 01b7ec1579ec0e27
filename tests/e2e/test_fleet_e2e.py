"""The lab's device container as a fleet (compose.test.yaml: DEVICE_FLEET_SIZE=3): netem puts
every emulated device's address on the shared interface, `bench-runner inventory` lists them
from the device, and a run over the inventory drives the profile and verifies the RTT on
each device."""

import json
from typing import Any

import httpx

from conftest import RESULTS_DIR, _run, _stamp, fleet_inventory

FLEET_SIZE = 3
NETEM_URL = "http://device:8181"


def test_netem_carries_every_fleet_address() -> None:
    fleet = httpx.get(f"{NETEM_URL}/fleet", timeout=10).json()
    assert fleet["size"] == FLEET_SIZE
    assert len(fleet["addresses"]) == FLEET_SIZE
    assert fleet["missing"] == []


def test_a_run_over_the_fleet_verifies_each_device() -> None:
    inventory_file, inventory = fleet_inventory("fleet.yaml")
    assert inventory["lab"] is True
    names = [target["name"] for target in inventory["targets"]]
    assert names == [f"lab-r{k}" for k in range(1, FLEET_SIZE + 1)]

    run_id = f"fleet-{_stamp()}"
    proc = _run(
        run_id,
        *("--targets", str(inventory_file), "--profile", "regional", "--no-sinks"),
        *("--modes", "https/keep-alive,ssh/reuse-conn", "--iterations", "3", "--warmup", "1"),
    ).proc
    assert proc.returncode == 0
    for target in inventory["targets"]:
        results: dict[str, Any] = json.loads(
            (RESULTS_DIR / f"{run_id}-{target['name']}" / "results.json").read_text()
        )
        assert results["profile"]["name"] == "regional"
        assert results["target"]["host"] == target["host"]
        for mode in results["modes"]:
            assert mode["ok"], mode["error_messages"]
            check = mode["rtt_check"]
            assert check["passed"], check
            # The delay added on this device's port, over its unimpaired one.
            assert abs(check["added_rtt_ms"] - 30) <= check["tolerance_ms"], check


def test_the_fleet_mode_reaches_every_device_it_is_given() -> None:
    """ssh/fleet-show-version over the test lab's fleet, its counts from the command line:
    each (hosts, repeats) case is its own result, every output checked by the mode to carry
    its own device's hostname, the RTT verified on the first device."""
    run_id = f"fleet-mode-{_stamp()}"
    proc = _run(
        run_id,
        *("--profile", "regional", "--no-sinks", "--modes", "ssh/fleet-show-version"),
        *("--clients", "asyncssh,paramiko", "--fleet-hosts", f"1,{FLEET_SIZE}"),
        *("--fleet-repeats", "2", "--iterations", "2", "--warmup", "0"),
    ).proc
    assert proc.returncode == 0
    results: dict[str, Any] = json.loads((RESULTS_DIR / run_id / "results.json").read_text())
    cases = {
        (m["client"], m["parameters"]["hosts"], m["parameters"]["repeats"])
        for m in results["modes"]
    }
    assert cases == {(c, h, 2) for c in ("asyncssh", "paramiko") for h in (1, FLEET_SIZE)}
    for mode in results["modes"]:
        assert mode["ok"], mode["error_messages"]
        assert mode["stats"]["n"] == 2
        assert mode["rtt_check"]["passed"], mode["rtt_check"]
