"""gNMI against the device's gNMI server (grpc-go), through netem's impairment of TCP 9339: every
gNMI mode with every client at `local` and `regional` against its round-trip model, the Set of
gnmi/set-batch visible over SSH and put back, and gnmi/stream's update delay within its model
(one-way delay plus the device's processing)."""

import asyncio
import json
import os
import re
import statistics
import subprocess
from collections.abc import Iterator
from typing import Any

import asyncssh
import pytest

from conftest import BenchRun, bench, sweep

GNMI_MODES = (
    "gnmi/fresh-conn",
    "gnmi/reuse-conn",
    "gnmi/get-multi",
    "gnmi/set-batch",
    "gnmi/subscribe-once",
    "gnmi/subscribe-poll",
    "gnmi/stream",
)
CLIENTS = {
    "grpc-go": set(GNMI_MODES),
    "pygnmi": set(GNMI_MODES),
    "gnmi_cli": {"gnmi/fresh-conn"},
}
ITERATIONS = 5
WIRE_MAY_ADD_ONE_PER_COMMAND = {("gnmi/fresh-conn", "pygnmi"), ("gnmi/fresh-conn", "gnmi_cli")}
"""Clients whose count may hold one more per command: pygnmi's connect (its row's evidence),
and gnmi_cli's process per command, which on a busy machine can send its first request after
the server's SETTINGS has arrived (a flight split by the process's own start: [24, 24, 24, 23,
24] for 20 in a fresh-clone run of 2026-11-28, grpc-go's in-process channel [20, 20, 20, 21,
20] beside it)."""
REGIONAL_ONE_WAY_SHARE = 0.5
"""netem's `regional` profile puts half the RTT on each direction (netem/profiles.yaml, split)."""
STREAM_ITERATIONS = 21
STREAM_MARGIN_SHARE = 1.0
"""The median update delay's margin over the one-way delay, as a share of the RTT (30 ms at
regional): a delivery that took a further round trip would be waiting on the client (a window
update, an acknowledgment), not travelling. What the device does between the commit's
timestamp and the update's departure (hand the change to the subscription, encode it, write it
through TLS) and the client's receive path take 1 to 6 ms on a quiet machine (16 to 21 ms
measured at regional); beside a lab under load (load average 13 to 16 on 2 cores, other labs'
Locust users and sweeps) single updates took up to 150 ms, a few of 5, so the median is taken
over STREAM_ITERATIONS."""
DESCRIPTION = re.compile(r"^ description bench (\S+) 1\.(\d+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def gnmi_sweep() -> dict[str, BenchRun]:
    return sweep(
        ("local", "regional"),
        "--modes",
        ",".join(GNMI_MODES),
        "--clients",
        ",".join(CLIENTS),
        "--iterations",
        str(ITERATIONS),
        "--warmup",
        "1",
        name="e2e-gnmi",
    )


@pytest.fixture(scope="module")
def stream_regional(gnmi_sweep: dict[str, BenchRun]) -> BenchRun:
    """gnmi/stream alone at `regional`, with enough iterations for a median that a few
    updates a loaded machine held back do not move."""
    return bench(
        "regional",
        "--modes",
        "gnmi/stream",
        "--clients",
        "grpc-go,pygnmi",
        name="e2e-gnmi-stream",
        iterations=STREAM_ITERATIONS,
    )


@pytest.fixture(params=["local", "regional"])
def gnmi_run(request: pytest.FixtureRequest, gnmi_sweep: dict[str, BenchRun]) -> BenchRun:
    return gnmi_sweep[request.param]


def _gnmi_modes(run: BenchRun) -> list[dict[str, Any]]:
    return [m for m in run.results["modes"] if m["transport"] == "gnmi"]


def test_every_gnmi_mode_runs_with_every_client(gnmi_run: BenchRun) -> None:
    modes = _gnmi_modes(gnmi_run)
    ran: dict[str, set[str]] = {}
    for mode in modes:
        ran.setdefault(mode["client"], set()).add(mode["mode"])
        assert mode["ok"], (mode["series"], mode["error_messages"])
        assert mode["stats"]["n"] == ITERATIONS, mode["series"]
        assert mode["client_version"] != "unknown", mode["series"]
        assert mode["wire"]["available"], mode["wire"]["reason"]
        assert mode["handshakes"]["available"], mode["series"]
    assert ran == CLIENTS
    assert gnmi_run.results["device"]["gnmi"].startswith("openconfig/gnmi v0.14.1")


def test_gnmi_round_trips_follow_the_model_at_regional(gnmi_sweep: dict[str, BenchRun]) -> None:
    """Counted on the wire, where CPU load cannot add a round trip to a client that sends
    each flight at once (an answer later than the RTT is still one answer): a fresh grpc-go
    channel 4 per command (TCP, TLS, the server's SETTINGS, the Get), a kept channel 1 per
    call. pygnmi's connect and gnmi_cli's process per command can split a flight: up to one
    more per command, a range their counts lie in."""
    for mode in _gnmi_modes(gnmi_sweep["regional"]):
        counted = [it["round_trips"] for it in mode["wire"]["per_iteration"]]
        median = statistics.median(counted)
        expected = mode["expected_round_trips"]
        if (mode["mode"], mode["client"]) in WIRE_MAY_ADD_ONE_PER_COMMAND:
            commands = len(mode["commands"])
            assert expected <= median <= expected + commands, (mode["series"], counted)
        else:
            assert median == expected, (mode["series"], counted)


def test_gnmi_p50_is_at_least_its_round_trips(gnmi_sweep: dict[str, BenchRun]) -> None:
    """Physics: no iteration beats its protocol's round trips times the verified RTT."""
    for mode in _gnmi_modes(gnmi_sweep["regional"]):
        floor_ms = mode["min_round_trips"] * mode["verified_rtt_ms"]
        assert mode["stats"]["p50_ms"] >= floor_ms, (mode["series"], mode["stats"], floor_ms)


def test_the_stream_update_delay_is_one_way_plus_processing(stream_regional: BenchRun) -> None:
    """Every update delay at `regional` is at least the one-way delay netem holds each packet
    from the device for (the timestamp is the device's commit, before the update leaves), and
    the median is below one round trip more (STREAM_MARGIN_SHARE); the rate of the SAMPLE
    subscription is recorded beside it."""
    modes = _gnmi_modes(stream_regional)
    assert {m["client"] for m in modes} == {"grpc-go", "pygnmi"}
    for mode in modes:
        assert mode["ok"], (mode["client"], mode["error_messages"])
        added_rtt_ms = mode["rtt_check"]["added_rtt_ms"]
        one_way_ms = REGIONAL_ONE_WAY_SHARE * mode["configured_rtt_ms"]
        assert mode["stats"]["min_ms"] >= one_way_ms, (mode["client"], mode["samples_ms"])
        ceiling_ms = one_way_ms + STREAM_MARGIN_SHARE * added_rtt_ms
        assert mode["stats"]["p50_ms"] <= ceiling_ms, (mode["client"], mode["samples_ms"])
        assert mode["stream"]["updates_per_second"] > 0, mode["stream"]


# --- gnmi/set-batch's writes, seen over SSH ---------------------------------------------------


def _descriptions(running_config: str) -> list[str]:
    return [line for line in running_config.splitlines() if line.startswith(" description ")]


def _running_config() -> str:
    async def show() -> str:
        async with asyncssh.connect(
            os.environ["DEVICE_HOST"],
            username=os.environ["DEVICE_USERNAME"],
            password=os.environ["DEVICE_PASSWORD"],
            known_hosts=None,
        ) as conn:
            done = await conn.run("show running-config", check=True, timeout=30)
            return str(done.stdout)

    return asyncio.run(show())


@pytest.fixture
def set_batch() -> Iterator[subprocess.Popen[str]]:
    """goclient-gnmi's gnmi/set-batch, ready, against the device (the runner's own program)."""
    process = subprocess.Popen(
        ["goclient-gnmi", "gnmi/set-batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    job = {
        "host": os.environ["DEVICE_HOST"],
        "port": 9339,
        "username_env": "DEVICE_USERNAME",
        "password_env": "DEVICE_PASSWORD",
        "paced": True,
        "timeout_s": 30,
    }
    process.stdin.write(json.dumps(job) + "\n")
    process.stdin.flush()
    ready = json.loads(process.stdout.readline())
    assert ready["event"] == "ready", ready
    yield process
    if process.poll() is None:
        process.kill()
        process.wait()


def test_set_batch_changes_every_description_and_puts_them_back(
    set_batch: subprocess.Popen[str],
) -> None:
    assert set_batch.stdin is not None
    assert set_batch.stdout is not None
    before = _running_config()
    commands = ["show version", "show clock", "show users", "show ip route", "show interfaces"]
    set_batch.stdin.write(json.dumps({"warmup": False, "commands": commands}) + "\n")
    set_batch.stdin.flush()
    line = json.loads(set_batch.stdout.readline())
    assert line["ok"], line
    during = _running_config()
    written = DESCRIPTION.findall(during)
    assert sorted(int(index) for _, index in written) == list(range(1, len(commands) + 1))
    assert len({session for session, _ in written}) == 1, written
    set_batch.stdin.close()
    assert json.loads(set_batch.stdout.readline())["event"] == "done"
    assert set_batch.wait(timeout=30) == 0
    assert _descriptions(_running_config()) == _descriptions(before)
