"""Fleet jobs (docs/fleet-jobs.md) on the test lab's fleet of 3 at `regional`: a Nornir job
and Ansible playbooks, run by the tools' own environment in the runner's image, each device's
output checked, the RTT verified on each device's port first, the tools' versions recorded,
an idempotent ios_config reporting no change the second time, and the step's point stored in
InfluxDB. Physics bounds only: a login to a device costs round trips at the profile's RTT."""

import json
import subprocess
from typing import Any

from conftest import RESULTS_DIR, _stamp, influx_query

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
