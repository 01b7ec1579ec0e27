"""The whole sidecar (netem-ctl, nfq engine) in the device namespace, driven over HTTP."""

import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from netem_ctl.engines.nfq import ipt
from netem_ctl.engines.runner import CommandError
from testbed import DEVICE_ADDR, Testbed, python_env

from ..conftest import PROFILES_FILE, delayer_path
from .bounds import UNDELAYED_MAX_MS, assert_delayed
from .conftest import BENCH_PORT, CONTROL_PORT, QUIC_PORT

pytestmark = pytest.mark.netns

STARTUP_TIMEOUT_S = 15


def http(bed: Testbed, method: str, path: str, body: dict | None = None) -> tuple[int, str]:
    """An HTTP request from the client namespace; returns status and body text."""
    script = (
        "import json, sys, urllib.request, urllib.error\n"
        "method, url, body = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "data = body.encode() if body else None\n"
        "headers = {'Content-Type': 'application/json'}\n"
        "request = urllib.request.Request(url, data=data, method=method, headers=headers)\n"
        "try:\n"
        "    with urllib.request.urlopen(request, timeout=10) as r:\n"
        "        print(r.status); print(r.read().decode())\n"
        "except urllib.error.HTTPError as e: print(e.code); print(e.read().decode())\n"
    )
    result = bed.client.run(
        [
            sys.executable,
            "-c",
            script,
            method,
            f"http://{DEVICE_ADDR}:{CONTROL_PORT}{path}",
            json.dumps(body) if body is not None else "",
        ]
    )
    status, _, text = result.stdout.partition("\n")
    return int(status), text


@pytest.fixture(scope="module")
def bed() -> Iterator[Testbed]:
    """Like the shared testbed, but port 8181 is left free for the service."""
    with Testbed() as testbed:
        testbed.serve(BENCH_PORT, QUIC_PORT)
        yield testbed


def start_service(
    bed: Testbed, run_dir: Path, profile: str = "regional"
) -> subprocess.Popen[bytes]:
    """netem-ctl in the device namespace (log in run_dir/service.log); returns once /healthz is
    200."""
    env = {
        **python_env(),
        "NETEM_ENGINE": "auto",
        "NETEM_PROFILE": profile,
        "NETEM_PROFILES_FILE": str(PROFILES_FILE),
        "NETEM_DELAYER": delayer_path() or "",
        "NETEM_RUN_DIR": str(run_dir),
        "NETEM_STATE_FILE": str(run_dir / "state.json"),
        "NETEM_WATCHDOG_INTERVAL_S": "0.5",
    }
    with open(run_dir / "service.log", "ab") as log:
        process = subprocess.Popen(
            [*bed.device.prefix, sys.executable, "-m", "netem_ctl"], env=env, stderr=log
        )
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if http(bed, "GET", "/healthz")[0] == 200:
                break
        except CommandError:
            pass  # not listening yet
        time.sleep(0.2)
    return process


def stop_service(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(10)


@pytest.fixture
def service(bed: Testbed, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    process = start_service(bed, tmp_path)
    yield process
    stop_service(process)


def test_initial_profile_api_and_clean_stop(bed, service):
    status, body = http(bed, "GET", "/profile")
    profile = json.loads(body)
    assert status == 200
    assert profile["profile"]["name"] == "regional"
    assert profile["engine"] in ("nfq", "tc")
    assert "NFQUEUE" in profile["readback"]["iptables"] or profile["engine"] == "tc"
    assert_delayed(statistics.median(bed.probe("connect", BENCH_PORT, 10)), 30)
    # The default NETEM_UDP_PORTS impairs QUIC's port: half of the 30 ms each way.
    for samples, direction in zip(
        zip(*bed.one_way(QUIC_PORT, 20, "udp"), strict=True), ("toward", "back"), strict=True
    ):
        assert_delayed(statistics.median(samples), 15, f"udp {direction}")
    if profile["engine"] == "nfq":
        status, body = http(bed, "GET", "/profile")
        readback = json.loads(body)["readback"]
        assert "lookup 4951" in readback["detour"]
        assert "tl-detour1.accept_local = 1" in readback["detour"]
        queued = [
            line.split() for line in readback["iptables_counters"].splitlines() if "NFQUEUE" in line
        ]
        # Queue 1's rules, then queue 2's, each TCP then UDP; every one has seen traffic.
        assert [rule[3] for rule in queued] == ["tcp", "udp", "tcp", "udp"], queued
        assert all(int(packets) > 0 for packets, *_ in queued), queued

    status, body = http(bed, "PUT", "/profile", {"name": "custom60", "rtt_ms": 60})
    assert status == 200
    assert json.loads(body)["profile"]["rtt_ms"] == 60
    assert_delayed(statistics.median(bed.probe("connect", BENCH_PORT, 10)), 60)
    assert http(bed, "PUT", "/profile/nowhere")[0] == 404
    assert http(bed, "PUT", "/profile", {"rtt_ms": -1})[0] == 422

    status, text = http(bed, "GET", "/metrics")
    assert 'netem_profile_info{profile="custom60"' in text
    assert "netem_profile_rtt_seconds 0.06" in text

    service.send_signal(signal.SIGTERM)
    service.wait(10)
    assert "NETEM_LAB" not in bed.device.run(ipt("-S")).stdout
    assert statistics.median(bed.probe("connect", BENCH_PORT, 5)) <= UNDELAYED_MAX_MS


def test_watchdog_restores_a_killed_delayer(bed, service):
    status, body = http(bed, "GET", "/profile")
    assert status == 200
    if json.loads(body)["engine"] != "nfq":
        pytest.skip("kernel has netem: the service chose tc")
    pid = json.loads(body)["readback"]["delayer"].split("pid=")[1].split()[0]
    os.kill(int(pid), signal.SIGKILL)
    time.sleep(2)  # a few watchdog rounds
    assert "netem_watchdog_repairs_total 1" in http(bed, "GET", "/metrics")[1]
    assert_delayed(statistics.median(bed.probe("connect", BENCH_PORT, 10)), 30)


def test_lost_interface_exits_loudly_and_restart_reapplies_the_current_profile(bed, tmp_path):
    """Device container restart, in namespaces: eth0 vanishes from the sidecar's namespace; the
    sidecar must exit non-zero (the restart policy restarts it) and come back with the profile the
    lab
    had."""
    first = start_service(bed, tmp_path, profile="regional")
    try:
        status, body = http(bed, "PUT", "/profile/continental")
        assert status == 200
        first_instance = json.loads(body)["instance"]
        bed.unlink()
        assert first.wait(10) != 0
    finally:
        stop_service(first)
        bed.link()
    log = (tmp_path / "service.log").read_text()
    assert "CRITICAL" in log
    assert "interface eth0 (ifindex" in log
    assert "has vanished" in log

    second = start_service(bed, tmp_path, profile="regional")
    try:
        status, body = http(bed, "GET", "/profile")
        assert status == 200
        assert json.loads(body)["profile"]["name"] == "continental"
        # A new instance: how a client knows its samples are void.
        assert json.loads(body)["instance"] != first_instance
        events = json.loads(http(bed, "GET", "/profile/history")[1])["events"]
        assert [(e["event"], e["profile"]) for e in events[:2]] == [
            ("started", None),
            ("applied", "continental"),
        ]
        assert_delayed(statistics.median(bed.probe("connect", BENCH_PORT, 10)), 70)
    finally:
        stop_service(second)
    assert (
        "RESTARTED: re-applying the last applied profile continental"
        in (tmp_path / "service.log").read_text()
    )
