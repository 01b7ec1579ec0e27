"""End-to-end fixtures: the real lab (compose.yaml + compose.test.yaml), the real runner.

These tests run inside the bench-runner container on the lab network (see `make test-e2e`),
so the device, netem, InfluxDB, Pushgateway and Prometheus are reached by their service names.
Each profile is benchmarked once per session and shared by every test.
"""

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from bench_runner.modes import MODE_NAMES
from bench_runner.modes.catalog import FLOOR_CLIENTS as CATALOG_FLOOR_CLIENTS
from bench_runner.modes.catalog import LIBRARIES

RESULTS_DIR = Path(os.environ.get("RESULTS_DIR", "/results"))
SSHD_DEBUG_LOG = Path(os.environ.get("DEVICE_SSHD_DEBUG_LOG", "/var/log/sshd-debug/sshd.log"))
"""The test lab's device writes sshd's LogLevel DEBUG1 log here (compose.test.yaml), a
volume this container mounts read-only."""
INFLUX_URL = os.environ["INFLUX_URL"]
INFLUX_DB = os.environ["INFLUX_DB"]
INFLUX_AUTH = (os.environ["INFLUX_USERNAME"], os.environ["INFLUX_PASSWORD"])
PROMETHEUS_URL = os.environ["PROMETHEUS_URL"]
ITERATIONS = 10
WARMUP = 2

# Every mode with its floor client, NETCONF in both framings at the smallest and the largest
# reply, in one sweep over local and regional: the sweep-shaped run (parameter variants,
# several profiles, the round-trip model) the dashboards must show apart.
FLOOR_MODES = set(MODE_NAMES)
FLOOR_CLIENTS = set(CATALOG_FLOOR_CLIENTS)
FRAMINGS = ("1.0", "1.1")
REPLY_BYTES = (1024, 1_048_576)
EVERY_MODE_ITERATIONS = 3


@dataclass(frozen=True)
class BenchRun:
    profile: str
    run_id: str
    exit_code: int
    output: str
    results: dict[str, Any]
    sshd_log: str | None
    """What the device's sshd logged while the run ran; None without the log."""

    def mode(self, name: str) -> dict[str, Any]:
        return next(m for m in self.results["modes"] if m["mode"] == name)


@dataclass(frozen=True)
class Ran:
    """A finished `bench-runner run` and what sshd logged meanwhile."""

    proc: subprocess.CompletedProcess[str]
    sshd_log: str | None


def _sshd_log_size() -> int | None:
    try:
        return SSHD_DEBUG_LOG.stat().st_size
    except FileNotFoundError:
        return None


def _run(run_id: str, *options: str) -> Ran:
    before = _sshd_log_size()
    proc = subprocess.run(
        ["bench-runner", "run", "--run-id", run_id, *options],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    sshd_log = None
    if before is not None:
        with SSHD_DEBUG_LOG.open("rb") as log:
            log.seek(before)
            sshd_log = log.read().decode("utf-8", errors="replace")
    return Ran(proc, sshd_log)


def _load(run_id: str, ran: Ran) -> BenchRun:
    proc = ran.proc
    results_file = RESULTS_DIR / run_id / "results.json"
    assert results_file.exists(), f"no results file for {run_id}: {proc.stderr[-2000:]}"
    results = json.loads(results_file.read_text())
    return BenchRun(
        results["profile"]["name"],
        run_id,
        proc.returncode,
        proc.stdout + proc.stderr,
        results,
        ran.sshd_log,
    )


def _stamp() -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def bench(
    profile: str,
    *options: str,
    name: str = "e2e",
    iterations: int = ITERATIONS,
    warmup: int = WARMUP,
) -> BenchRun:
    """One `bench-runner run` at `profile` (default plan unless `options` say otherwise)."""
    run_id = f"{name}-{profile}-{_stamp()}"
    ran = _run(
        run_id,
        "--profile",
        profile,
        "--iterations",
        str(iterations),
        "--warmup",
        str(warmup),
        *options,
    )
    return _load(run_id, ran)


def sweep(profiles: tuple[str, ...], *options: str, name: str) -> dict[str, BenchRun]:
    """One `bench-runner run` over several profiles: a sweep, its runs `<sweep>-<profile>`."""
    sweep_id = f"{name}-{_stamp()}"
    ran = _run(sweep_id, "--profile", ",".join(profiles), *options)
    return {profile: _load(f"{sweep_id}-{profile}", ran) for profile in profiles}


def plan(name: str) -> BenchRun:
    """One `bench-runner run --plan <name>` of a single-profile plan."""
    run_id = f"e2e-{name}-{_stamp()}"
    return _load(run_id, _run(run_id, "--plan", name))


@pytest.fixture(scope="session")
def local_run() -> BenchRun:
    return bench("local")


@pytest.fixture(scope="session")
def regional_run(local_run: BenchRun) -> BenchRun:
    # Depends on local_run so the two never overlap and local's p50 is known for the bounds.
    return bench("regional")


@pytest.fixture(scope="session")
def smoke_run(regional_run: BenchRun) -> BenchRun:
    """Every mode with every library at local (the smoke plan)."""
    return plan("smoke")


@pytest.fixture(scope="session")
def smoke_regional_run(smoke_run: BenchRun) -> BenchRun:
    """Every mode with every library but the floor clients at regional: the every-mode sweep
    measures the floor clients there (the time split of each library's own packets under
    delay, without measuring the floor clients twice)."""
    run_id = f"e2e-smoke-regional-{_stamp()}"
    return _load(
        run_id,
        _run(run_id, "--plan", "smoke", "--profile", "regional", "--clients", ",".join(LIBRARIES)),
    )


LOSSY_PROFILE = "regional-loss-2"
LOSSY_MODES = ("ssh/fresh-conn", "https/keep-alive", "h3/fresh-conn")
"""A new connection per iteration, which meets a loss in many iterations at 2 %, and a kept
one, which meets few; a new QUIC connection, whose losses its client counts: the rows Bad
links shows and test_bad_links_e2e checks."""
LOSSY_COMMAND = "show version"
LOSSY_ITERATIONS = 150
"""About 3,000 data segments of the runner's on the new connections: 60 losses expected, at
least 21 by test_bad_links_e2e's bound, in about 80 s."""


@pytest.fixture(scope="session")
def lossy_run() -> BenchRun:
    """One run under 2 % loss each way: the only points that carry segments sent again,
    recovery and the loss model."""
    return bench(
        LOSSY_PROFILE,
        "--modes",
        ",".join(LOSSY_MODES),
        "--commands",
        LOSSY_COMMAND,
        name="e2e-bad-links",
        iterations=LOSSY_ITERATIONS,
    )


@pytest.fixture(scope="session")
def every_mode_sweep(smoke_regional_run: BenchRun) -> dict[str, BenchRun]:
    return sweep(
        ("local", "regional"),
        "--modes",
        ",".join(sorted(FLOOR_MODES)),
        "--netconf-framing",
        ",".join(FRAMINGS),
        "--netconf-reply-bytes",
        ",".join(map(str, REPLY_BYTES)),
        "--iterations",
        str(EVERY_MODE_ITERATIONS),
        "--warmup",
        "1",
        name="e2e-every-mode",
    )


def fleet_inventory(name: str) -> tuple[Path, dict[str, Any]]:
    """`bench-runner inventory` of the test lab's fleet, written to ``<results>/<name>``:
    the file, to pass as ``--targets``, and what it holds."""
    inventory_file = RESULTS_DIR / name
    listed = subprocess.run(
        ["bench-runner", "inventory", "--output", str(inventory_file)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    inventory: dict[str, Any] = yaml.safe_load(inventory_file.read_text())
    return inventory_file, inventory


REMOTE_SITE_MODES = (
    "ssh/fresh-conn",
    "ssh/pty-fresh",
    "https/batch-post",
    "jump/fresh-conn",
    "jump/pty-fresh",
    "proxy/pooled-ssh",
    "proxy/keep-alive",
    "proxy-h3/keep-alive",
)
"""The same commands straight to the device, through the jump host and through the head-end:
what the Remote sites dashboard and the report's remote-site chart compare."""


def relayed_job(run: BenchRun) -> BenchRun:
    """The job of ``run``'s relayed modes (``<run id>-relayed``: a run of direct and relayed
    modes writes one results.json for each)."""
    relayed_id = f"{run.run_id}-relayed"
    results = json.loads((RESULTS_DIR / relayed_id / "results.json").read_text())
    return BenchRun(run.profile, relayed_id, run.exit_code, run.output, results, None)


@pytest.fixture(scope="session")
def remote_site_runs(every_mode_sweep: dict[str, BenchRun]) -> tuple[BenchRun, BenchRun]:
    """One run at regional (the WAN) behind campus (the LAN), published to the sinks: its
    direct job and its relayed one."""
    run = bench(
        "regional",
        "--modes",
        ",".join(REMOTE_SITE_MODES),
        "--commands",
        "show version;show clock",
        name="e2e-remote-site",
        iterations=EVERY_MODE_ITERATIONS,
        warmup=1,
    )
    assert run.exit_code == 0, run.output[-3000:]
    return run, relayed_job(run)


def influx_query(q: str) -> list[dict[str, Any]]:
    """Runs an InfluxQL query and returns its series (empty list when there are none)."""
    resp = httpx.get(
        f"{INFLUX_URL}/query", params={"db": INFLUX_DB, "q": q}, auth=INFLUX_AUTH, timeout=10
    )
    resp.raise_for_status()
    result = resp.json()["results"][0]
    assert "error" not in result, result
    series: list[dict[str, Any]] = result.get("series", [])
    return series


def prom_query(expr: str, since: float | None = None) -> list[dict[str, Any]]:
    """The series of ``expr`` now; with ``since`` (epoch seconds), every series with a
    sample from then to now, as a panel over that time range draws them."""
    path, params = "query", {"query": expr}
    if since is not None:
        path, params = "query_range", {**params, "start": since, "end": time.time(), "step": 5}
    resp = httpx.get(f"{PROMETHEUS_URL}/api/v1/{path}", params=params, timeout=10)
    resp.raise_for_status()
    body = resp.json()
    assert body["status"] == "success", body
    data: list[dict[str, Any]] = body["data"]["result"]
    return data


def prom_wait(expr: str, expected: int, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Prometheus scrapes the Pushgateway every 5 s: poll until the series arrive."""
    deadline = time.monotonic() + timeout
    while True:
        data = prom_query(expr)
        if len(data) >= expected or time.monotonic() > deadline:
            return data
        time.sleep(2)


@dataclass(frozen=True)
class FleetSweep:
    """A finished `bench-runner fleet-sweep`: its summary and each step's own document."""

    sweep_id: str
    exit_code: int
    output: str
    summary: dict[str, Any]
    """fleet-sweep.json."""
    steps: dict[str, dict[str, Any]]
    """Each step's fleet-job.json, by its run id."""


FLEET_SWEEP_DEVICES = (1, 3)
FLEET_SWEEP_WORKERS = (1, 3)


@pytest.fixture(scope="session")
def fleet_sweep() -> FleetSweep:
    """Nornir (netmiko) on the test lab's fleet of 3 at regional over devices 1,3 x workers
    1,3: three steps of a few seconds each (the step of 3 workers on 1 device is skipped),
    published: what the fleet jobs' e2e test and the Fleet jobs dashboard look at."""
    sweep_id = f"e2e-fleet-sweep-{_stamp()}"
    proc = subprocess.run(
        ["bench-runner", "fleet-sweep", "--sweep-id", sweep_id, "--tool", "nornir",
         "--connection", "netmiko", "--profile", "regional",
         "--devices", ",".join(map(str, FLEET_SWEEP_DEVICES)),
         "--workers", ",".join(map(str, FLEET_SWEEP_WORKERS))],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n")
    summary_file = RESULTS_DIR / sweep_id / "fleet-sweep.json"
    assert summary_file.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    summary: dict[str, Any] = json.loads(summary_file.read_text())
    steps = {
        step["run_id"]: json.loads((RESULTS_DIR / step["run_id"] / "fleet-job.json").read_text())
        for step in summary["steps"]
    }
    return FleetSweep(sweep_id, proc.returncode, proc.stdout + proc.stderr, summary, steps)
