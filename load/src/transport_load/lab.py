"""The load run's state (one ``LabState`` per process, state.py) and Locust's event hooks.

Workers (and a standalone process) record every request into a per-second Collector and
hand it to the master with Locust's own stats report (``report_to_master``); the master
merges (``worker_report``), samples the device's and the load generator's CPU and memory
every second, writes settled seconds to InfluxDB and pushes to the Pushgateway every
``FLUSH_S``, and at the end writes everything left, the results files and the summary.
"""

import argparse
import logging
import os
import socket
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gevent
import psutil
from locust import events, runners
from locust.env import Environment
from locust.runners import MasterRunner, WorkerRunner

from bench_runner.influx_schema import LoadResourcesField
from bench_runner.sinks.spool import Spool
from transport_load import context, results
from transport_load.inventory import Device, check_lab_only, load_inventory
from transport_load.sinks import InfluxSink, PushgatewaySink
from transport_load.state import SAMPLE_TIME, LabState
from transport_load.transports import (
    COMMAND,
    GNMI_INTERVAL_MS,
    MAX_DURATION_S,
    TRANSPORTS,
    parse_command,
)

FLUSH_S = 5.0
WORKER_READY_GRACE_S = 5.0
SETTLE_S = {"master": 8, "local": 2}
"""Seconds a bucket may still change: workers report every 3 s."""
log = logging.getLogger("transport_load")
# paramiko and aioquic (logger "quic") log every connection at INFO, parallel-ssh every line
# of output: thousands of lines a second under load, and the logging would be measured with
# the operations.
logging.getLogger("paramiko").setLevel(logging.WARNING)
logging.getLogger("pssh").setLevel(logging.WARNING)
logging.getLogger("quic").setLevel(logging.WARNING)

WORKER_SILENCE_S = 30
"""Seconds without a heartbeat (sent every second) before the master gives a worker up.
Locust's 3 s is less than a worker's gevent loop can stall while it spawns SSH sessions on
a busy 2-core machine; a worker given up and back then makes the master spawn its users
again elsewhere, and the run holds far more sessions than asked for. Read by the master
whenever a worker connects or sends a heartbeat, so it is set before the runner exists."""
runners.HEARTBEAT_LIVENESS = WORKER_SILENCE_S


STATE = LabState()
_VERSIONS: dict[str, str] = {}


_ADDRESSES: dict[str, str] = {}


def resolve(host: str) -> str:
    """The host's IPv4 address, looked up once per process."""
    if host not in _ADDRESSES:
        _ADDRESSES[host] = socket.gethostbyname(host)
    return _ADDRESSES[host]


def client_label(client: str) -> str:
    if not _VERSIONS:
        _VERSIONS.update(context.versions())
    return f"{client} {_VERSIONS.get(client, 'unknown')}"


@events.init_command_line_parser.add_listener
def _options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Transport Lab")
    group.add_argument("--lab-run-id", default="", help="run id: results/<run-id>/")
    group.add_argument("--lab-targets", default="", help="inventory file (results/fleet.yaml)")
    group.add_argument("--lab-results-dir", default=os.environ.get("RESULTS_DIR", "/results"))
    group.add_argument("--lab-kind", default="load", choices=["load", "sweep"])
    group.add_argument("--lab-command", default=COMMAND, help="what the CLI transports run")
    group.add_argument("--lab-plan", default="", help="the plan this run belongs to")
    group.add_argument("--lab-transports", default="all", help="sweep: transports, in order")
    group.add_argument("--lab-steps", default="1,10,50,100,200,500", help="sweep: users per step")
    group.add_argument("--lab-step-seconds", type=float, default=60.0, help="sweep: step length")
    group.add_argument("--lab-spawn-rate", type=float, default=50.0, help="sweep: users/s")
    group.add_argument(
        "--lab-gnmi-interval-ms",
        type=float,
        default=GNMI_INTERVAL_MS,
        help="gnmi-stream: sample interval (a sweep sets it per step)",
    )
    group.add_argument(
        "--lab-gnmi-intervals", default="", help="sweep: gnmi-stream's sample intervals (ms)"
    )


def _role(environment: Environment) -> str:
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        return "master"
    if isinstance(runner, WorkerRunner):
        return "worker"
    return "local"


@events.init.add_listener
def _init(environment: Environment, **_: Any) -> None:
    options = environment.parsed_options
    STATE.role = _role(environment)
    if options is not None:
        if options.lab_targets:
            STATE.inventory = load_inventory(Path(options.lab_targets))
        check_lab_only(STATE.inventory)
        STATE.run_id = options.lab_run_id or datetime.now(UTC).strftime("load-%Y%m%dT%H%M%SZ")
        STATE.results_dir = Path(options.lab_results_dir)
        STATE.kind = options.lab_kind
        STATE.command = parse_command(options.lab_command)
        STATE.plan = options.lab_plan
        STATE.workers = (
            int(getattr(options, "expect_workers", 1) or 1) if STATE.role == "worker" else 1
        )
        if STATE.role != "worker" and not options.headless:
            STATE.web_ui_limit_s = float(options.run_time or MAX_DURATION_S)
    netem = context.netem_state(os.environ.get("NETEM_URL"))
    STATE.profile = str(netem.get("name") or "unknown")
    runner = environment.runner
    if not isinstance(runner, MasterRunner):
        environment.events.request.add_listener(_record)
    if isinstance(runner, WorkerRunner):
        environment.events.report_to_master.add_listener(_report_to_master)
        return
    if isinstance(runner, MasterRunner):
        environment.events.worker_report.add_listener(_worker_report)
    _open_sinks()
    gevent.spawn(_sample_loop, environment)


@events.test_start.add_listener
def _test_start(environment: Environment, **_: Any) -> None:
    if STATE.role == "worker":
        runner = environment.runner
        assert isinstance(runner, WorkerRunner)
        STATE.worker_index = runner.worker_index
        return
    STATE.started_at = datetime.now(UTC)
    STATE.context = run_context(netem_url=os.environ.get("NETEM_URL"))
    if STATE.web_ui_limit_s is not None:
        gevent.spawn_later(STATE.web_ui_limit_s, _stop_at_the_limit, environment)


def _stop_at_the_limit(environment: Environment) -> None:
    runner = environment.runner
    if runner is not None and runner.state not in ("stopped", "stopping"):
        log.info("the lab's run time limit (%g s) reached: stopping", STATE.web_ui_limit_s)
        runner.stop()


@events.test_stop.add_listener
def _test_stop(environment: Environment, **_: Any) -> None:
    """A web UI test is one run, like a headless one: when it stops (its run time, the
    lab's limit or the Stop button), the results are written and Locust quits, workers
    too. Another run is another `make load-up`."""
    if STATE.web_ui_limit_s is not None and STATE.started_at is not None:
        gevent.spawn(_quit, environment)


def _quit(environment: Environment) -> None:
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        # A stopped worker leaves the master's list and reads its next message only after a
        # stop_timeout pause, then registers again: a quit sent before that reaches no one,
        # and the worker lingers until its 60 s heartbeat timeout.
        deadline = time.monotonic() + environment.stop_timeout + WORKER_READY_GRACE_S
        while len(runner.clients.ready) < STATE.workers_seen and time.monotonic() < deadline:
            gevent.sleep(0.5)
    # Locust's own order at the end of an --autostart run: the runner, then the web UI,
    # whose greenlet is the one the process waits on.
    if runner is not None:
        runner.quit()
    if environment.web_ui is not None:
        environment.web_ui.stop()


def run_context(netem_url: str | None) -> dict[str, Any]:
    netem = context.netem_state(netem_url)
    first = STATE.inventory.devices[0]
    try:
        probe = context.probe_rtt(first.host, first.ssh_port, _metrics_port(first))
    except OSError as exc:
        probe = {"error": str(exc)}
    configured = netem.get("configured_rtt_ms")
    measured = probe.get("rtt_ms")
    return {
        "profile": {
            "name": netem.get("name") or "unknown",
            "engine": netem.get("engine") or os.environ.get("LAB_ENGINE") or "unknown",
            "configured_rtt_ms": configured,
            "verified_rtt_ms": measured,
            "rtt_probe": probe,
            "rtt_verified": context.rtt_verified(
                configured, measured, probe.get("reference_rtt_ms")
            )
            if measured is not None
            else None,
        },
        "versions": context.versions(),
        "lab_commit": os.environ.get("LAB_COMMIT", "unknown"),
        "targets": {
            "lab": STATE.inventory.lab,
            "devices": len(STATE.inventory.devices),
            "first": first.name,
        },
    }


def _metrics_port(device: Device) -> int | None:
    if not device.metrics_url:
        return None
    try:
        return int(device.metrics_url.rsplit(":", 1)[1].split("/")[0])
    except (IndexError, ValueError):
        return None


def _record(
    request_type: str,
    name: str,
    response_time: float,
    response_length: int,
    exception: Exception | None = None,
    context: dict[str, Any] | None = None,
    start_time: float | None = None,
    **_: Any,
) -> None:
    ctx = context or {}
    transport = str(ctx.get("transport", request_type))
    STATE.collector.record(
        start_time if start_time is not None else time.time() - response_time / 1000.0,
        (transport, name, str(ctx.get("client", ""))),
        response_time,
        int(response_length or 0),
        exception is not None,
        str(ctx.get("device", "")),
    )


def _report_to_master(client_id: str, data: dict[str, Any]) -> None:
    data["lab"] = STATE.collector.drain()


def _worker_report(client_id: str, data: dict[str, Any]) -> None:
    if "lab" in data:
        STATE.collector.merge_wire(data["lab"])


def _open_sinks() -> None:
    spool = Spool(STATE.results_dir / "spool")
    STATE.influx = InfluxSink(
        os.environ.get("INFLUX_URL"),
        os.environ.get("INFLUX_DB", "transport_lab"),
        os.environ.get("INFLUX_USERNAME"),
        os.environ.get("INFLUX_PASSWORD"),
        spool,
        STATE.run_id,
    )
    STATE.pushgateway = PushgatewaySink(os.environ.get("PUSHGATEWAY_URL"), spool, STATE.run_id)


_PROCESS = psutil.Process()


def _generator_usage(environment: Environment) -> tuple[float, float]:
    """CPU (% of one core, since the last call) and RSS bytes of the load generator: this
    process, and on a master every worker as its last heartbeat reported it."""
    runner = environment.runner
    cpu, memory = float(_PROCESS.cpu_percent()), float(_PROCESS.memory_info().rss)
    if isinstance(runner, MasterRunner):
        for worker in runner.clients.values():
            cpu += float(worker.cpu_usage)
            memory += float(worker.memory_usage)
    return cpu, memory


def _device_loop(latest: dict[str, float]) -> None:
    """The device's CPU and memory, fetched on its own greenlet: a device too busy to answer
    its metrics quickly delays only these figures, never the per-second samples or the
    flushes."""
    sampler = context.DeviceSampler(_device_metrics_url())
    while not STATE.finished:
        started = time.monotonic()
        values = sampler.sample()
        if values:
            latest.clear()
            latest.update(values, at=time.monotonic())
        if sampler.gnmi:
            STATE.device_gnmi.append({SAMPLE_TIME: time.time(), **sampler.gnmi})
        gevent.sleep(max(0.0, 1.0 - (time.monotonic() - started)))


def _flush_loop(environment: Environment) -> None:
    while not STATE.finished:
        gevent.sleep(FLUSH_S)
        if STATE.started_at is not None and not STATE.finished:
            flush(environment, final=False)


def _sample_loop(environment: Environment) -> None:
    """Every second: users, the generator's CPU and memory, and the device's latest figures
    if they are at most 3 s old."""
    latest: dict[str, float] = {}
    gevent.spawn(_device_loop, latest)
    gevent.spawn(_flush_loop, environment)
    next_at = time.monotonic()
    while not STATE.finished:
        next_at += 1.0
        gevent.sleep(max(0.0, next_at - time.monotonic()))
        runner = environment.runner
        if runner is None or STATE.started_at is None:
            continue
        sample: dict[str, float] = {
            SAMPLE_TIME: time.time(),
            LoadResourcesField.USERS: float(runner.user_count),
        }
        if latest and time.monotonic() - latest.get("at", 0.0) <= 3.0:
            sample.update({k: v for k, v in latest.items() if k != "at"})
        if isinstance(runner, MasterRunner):
            STATE.workers_seen = max(STATE.workers_seen, len(runner.clients))
        cpu, memory = _generator_usage(environment)
        sample[LoadResourcesField.GENERATOR_CPU_PERCENT] = cpu
        sample[LoadResourcesField.GENERATOR_MEMORY_BYTES] = memory
        STATE.resources.append(sample)


def _device_metrics_url() -> str | None:
    first = STATE.inventory.devices[0]
    return first.metrics_url or os.environ.get("DEVICE_METRICS_URL")


def flush(environment: Environment, *, final: bool) -> None:
    """Settled seconds to InfluxDB (every second at the end), the current figures to the
    Pushgateway."""
    horizon = int(time.time()) + 2 if final else int(time.time()) - SETTLE_S.get(STATE.role, 8)
    points = results.second_points(STATE, horizon)
    if STATE.influx is not None:
        STATE.influx.write(points)
    if STATE.pushgateway is not None:
        STATE.pushgateway.push(results.prometheus_text(STATE, environment), final=final)


@events.quitting.add_listener
def _quitting(environment: Environment, **_: Any) -> None:
    if STATE.role == "worker" or STATE.finished or STATE.started_at is None:
        return
    flush(environment, final=True)
    STATE.finished = True
    path = results.write_results(STATE, environment)
    log.info("load results: %s", path)


__all__ = ["STATE", "TRANSPORTS", "client_label", "flush"]
