"""Fleet jobs (docs/fleet-jobs.md) on the test lab's fleet of 3 at `regional`: a Nornir job
and Ansible playbooks, run by the tools' own environment in the runner's image, each device's
output checked, the RTT verified on each device's port first, the tools' versions recorded,
an idempotent ios_config reporting no change the second time, and the step's point stored in
InfluxDB; a small fleet sweep (devices 1,3 x workers 1,3) with its summary, every step's own
document and point under the sweep, and the knee of each devices count. Physics bounds only:
a login to a device costs round trips at the profile's RTT, one worker takes the devices one
after another."""

import json
import subprocess
from typing import Any

from conftest import (
    FLEET_SWEEP_DEVICES,
    FLEET_SWEEP_WORKERS,
    RESULTS_DIR,
    FleetSweep,
    _stamp,
    influx_query,
)

FLEET_SIZE = 3
RTT_MS = 30.0  # regional
LOGIN_ROUND_TRIPS = 5
"""No SSH login and command takes fewer: TCP, the version exchange, the key exchange,
authentication, a channel and its command (each of the last counted once)."""


def _fleet_job(name: str, *options: str) -> dict[str, Any]:
    run_id = f"e2e-fleet-{name}-{_stamp()}"
    proc = subprocess.run(
        ["bench-runner", "fleet-job", "--run-id", run_id, "--devices", str(FLEET_SIZE),
         "--workers", str(FLEET_SIZE), "--profile", "regional", *options],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    document: dict[str, Any] = json.loads((RESULTS_DIR / run_id / "fleet-job.json").read_text())
    assert document["ok"], document["error"]
    assert document["profile"]["name"] == "regional"
    for device in document["rtt"]:
        check = device["check"]
        assert check["passed"], device
        assert abs(check["added_rtt_ms"] - RTT_MS) <= check["tolerance_ms"], device
    assert len(document["hosts"]) == FLEET_SIZE
    assert all(host["ok"] for host in document["hosts"]), document["hosts"]
    return document


def _outputs(document: dict[str, Any]) -> dict[str, str]:
    return {host["name"]: "\n".join(host["outputs"]) for host in document["hosts"]}


def _each_device_answered_as_itself(document: dict[str, Any]) -> None:
    """`show version` names the device it ran on: every device of the fleet answered."""
    for name, output in _outputs(document).items():
        assert name in output, (name, output[:300])


def test_a_nornir_job_runs_on_every_device_of_the_fleet() -> None:
    document = _fleet_job("nornir", "--tool", "nornir", "--connection", "netmiko")
    _each_device_answered_as_itself(document)
    for distribution in ("nornir", "nornir-netmiko", "netmiko"):
        assert document["versions"].get(distribution), (distribution, document["versions"])
    wall_s = document["wall_s"]
    for host in document["hosts"]:
        assert host["elapsed_s"] * 1000 >= LOGIN_ROUND_TRIPS * RTT_MS * 0.98, host
        assert host["elapsed_s"] <= wall_s, (host, wall_s)
    assert document["model"]["rounds"] == 1
    rows = influx_query(
        f'SELECT "wall_s", "devices" FROM "fleet_job" WHERE "run_id" = \'{document["run_id"]}\''
    )
    [series] = rows
    assert [row[2] for row in series["values"]] == [FLEET_SIZE], series


def test_an_ansible_playbook_runs_over_network_cli_with_paramiko() -> None:
    document = _fleet_job(
        "ansible-show", "--tool", "ansible", "--connection", "network_cli",
        "--ssh-type", "paramiko",
    )  # fmt: skip
    _each_device_answered_as_itself(document)
    assert document["ssh_type"] == "paramiko"
    for name in ("ansible-core", "cisco.ios", "ansible.netcommon"):
        assert document["versions"].get(name), (name, document["versions"])


def test_ios_config_is_idempotent_across_the_fleet() -> None:
    """Over libssh, network_cli's default SSH library (the show above used paramiko)."""
    options = ("--tool", "ansible", "--connection", "network_cli", "--operation", "config")
    _fleet_job("ansible-config-first", *options)
    again = _fleet_job("ansible-config-again", *options)
    assert again["ssh_type"] == "libssh"
    assert [host["changed"] for host in again["hosts"]] == [False] * FLEET_SIZE, again["hosts"]


def test_a_sweep_runs_a_fleet_job_per_step_under_one_sweep_id(fleet_sweep: FleetSweep) -> None:
    assert fleet_sweep.exit_code == 0, fleet_sweep.output[-3000:]
    summary = fleet_sweep.summary
    assert summary["ok"], summary["error"]
    expected = [
        (devices, workers)
        for devices in FLEET_SWEEP_DEVICES
        for workers in FLEET_SWEEP_WORKERS
        if workers <= devices
    ]
    assert [(step["devices"], step["workers"]) for step in summary["steps"]] == expected
    assert summary["skipped"] == [{"profile": "regional", "devices": 1, "workers": 3}]
    for run_id, document in fleet_sweep.steps.items():
        assert document["sweep"] == fleet_sweep.sweep_id, run_id
        assert document["ok"], (run_id, document["error"])
        assert all(device["check"]["passed"] for device in document["rtt"]), run_id
        assert document["versions"].get("nornir"), run_id
        assert document["client_cores"] >= 1, run_id
        assert document["client_utilisation"] > 0, run_id
    [one_worker] = [
        document
        for document in fleet_sweep.steps.values()
        if (document["devices"], document["workers"]) == (FLEET_SIZE, 1)
    ]
    # One worker takes the devices one after another: their times add up within the job's.
    elapsed = sum(host["elapsed_s"] for host in one_worker["hosts"])
    assert elapsed <= one_worker["wall_s"], (elapsed, one_worker["wall_s"])


def test_a_sweep_reports_the_knee_of_each_devices_count(fleet_sweep: FleetSweep) -> None:
    """Fewer than 6 devices give no per-device interval, so no step can be told apart from
    its model: the knee is undetermined, never called."""
    knees = fleet_sweep.summary["knees"]
    assert [(knee["profile"], knee["devices"]) for knee in knees] == [
        ("regional", devices) for devices in FLEET_SWEEP_DEVICES
    ]
    for knee in knees:
        assert knee["status"] == "undetermined", knee
        assert knee["workers"] is None, knee
        assert "no per-device interval" in knee["reason"], knee


def test_a_sweep_s_steps_and_knees_are_stored_under_the_sweep(fleet_sweep: FleetSweep) -> None:
    sweep = fleet_sweep.sweep_id
    steps = influx_query(
        f'SELECT "wall_s", "workers", "client_utilisation" FROM "fleet_job" '
        f'WHERE "sweep" = \'{sweep}\' GROUP BY "run_id"'
    )
    assert {series["tags"]["run_id"] for series in steps} == set(fleet_sweep.steps)
    knees = influx_query(
        f'SELECT "status", "steps" FROM "fleet_knee" WHERE "sweep" = \'{sweep}\' GROUP BY "devices"'
    )
    assert sorted(series["tags"]["devices"] for series in knees) == sorted(
        str(devices) for devices in FLEET_SWEEP_DEVICES
    )
