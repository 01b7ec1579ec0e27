"""The parts that live in Locust's process: per-second points, Prometheus text, the sweep
summary and results.json, on a LabState filled by hand (no device needed)."""

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench_runner.influx_schema import LoadStepField, Measurement
from bench_runner.sinks.line_protocol import format_points
from transport_load import results
from transport_load.state import LabState, StepWindow
from transport_load.stats import Collector

KEY = ("ssh-reuse", "ssh/reuse-conn", "paramiko 5.1.0")


def _state(tmp_path: Path) -> LabState:
    state = LabState(run_id="load-t", profile="local", results_dir=tmp_path)
    state.collector = Collector()
    for second in range(1000, 1010):
        for n in range(10 * (1 + second - 1000)):
            state.collector.record(second + 0.5, KEY, 2.0 + n % 3, 100, False, "lab-r1")
        state.resources.append(
            {
                "time": second + 0.9,
                "users": float(second - 999),
                "device_cpu_cores": 0.5,
                "device_memory_bytes": 2e7,
                "generator_cpu_percent": 40.0,
                "generator_memory_bytes": 9e7,
            }
        )
    return state


def _environment() -> Any:
    options = SimpleNamespace(num_users=10, spawn_rate=10, run_time=10, processes=None)
    return SimpleNamespace(
        parsed_options=options, runner=SimpleNamespace(user_count=10, clients={})
    )


def test_points_once_per_second_and_rewritten_only_when_changed(tmp_path: Path) -> None:
    state = _state(tmp_path)
    points = results.second_points(state, 1005)
    loads = [p for p in points if p.measurement == "load"]
    assert [p.timestamp_ns // 10**9 for p in loads] == list(range(1000, 1005))
    assert loads[0].fields["requests"] == 10
    assert loads[0].tags["transport"] == "ssh-reuse"
    assert len([p for p in points if p.measurement == "load_resources"]) == 10
    format_points(points)  # valid line protocol
    # a late worker report changes second 1004: only that point is written again
    state.collector.record(1004.1, KEY, 9.0, 1, True, "lab-r1")
    again = results.second_points(state, 1005)
    assert [(p.timestamp_ns // 10**9, p.fields["requests"]) for p in again] == [(1004, 51)]
    assert results.stored_points(state) == 5 + 10


def test_prometheus_text_has_every_series(tmp_path: Path) -> None:
    text = results.prometheus_text(_state(tmp_path), _environment())
    assert 'transport_lab_load_requests_total{client="paramiko 5.1.0"' in text
    assert 'quantile="0.99"' in text
    assert "transport_lab_load_users{" in text


def test_sweep_steps_are_taken_after_the_ramp_and_the_knee_found(tmp_path: Path) -> None:
    state = _state(tmp_path)
    state.kind = "sweep"
    state.steps = [
        StepWindow("ssh-reuse", 1, 999.0, ramped=999.5, ended=1004.0),
        StepWindow("ssh-reuse", 10, 1004.0, ramped=1004.2, ended=1010.0),
    ]
    section = results.sweep_section(state)
    first, second = section["steps"]
    assert first["window_s"] == 4  # seconds 1000..1003
    assert first["requests"] == 10 + 20 + 30 + 40
    assert second["window_s"] == 5
    assert first["device_cpu_cores"] == 0.5
    assert section["knees"]["ssh-reuse"]["users"] in (1, 10)


def test_every_figure_of_a_step_is_a_load_step_field(tmp_path: Path) -> None:
    """The schema names what a step point carries: no figure of a step is left out of it."""
    state = _state(tmp_path)
    state.kind = "sweep"
    state.steps = [StepWindow("ssh-reuse", 1, 999.0, ramped=999.5, ended=1004.0)]
    section = results.sweep_section(state)
    [point] = results.step_points(state, section)
    figures = {
        key
        for key, value in section["steps"][0].items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    assert set(point.fields) == figures | {LoadStepField.KNEE}
    assert point.measurement == Measurement.LOAD_STEP


def test_results_json_load_section(tmp_path: Path) -> None:
    state = _state(tmp_path)
    state.context = {"profile": {"name": "local", "engine": "nfq", "verified_rtt_ms": 0.2}}
    path = results.write_results(state, _environment())
    import json

    document = json.loads(path.read_text())
    load = document["load"]
    assert path == tmp_path / "load-t" / "results.json"
    assert load["engine"] == "locust"
    assert load["profile"]["engine"] == "nfq"
    assert load["transports"][0]["requests"] == sum(10 * k for k in range(1, 11))
    assert load["devices_loaded"] == {"lab-r1": {"requests": 550, "failures": 0}}
    assert load["files"]["csv_history"] == "load/locust_stats_history.csv"
    assert load["command"] == "show version"
    assert "plan" not in document
    state.plan, state.command = "reproduce-parallel-ssh", "show payload 26624"
    path.unlink()
    document = json.loads(results.write_results(state, _environment()).read_text())
    assert (document["plan"], document["load"]["command"]) == (
        "reproduce-parallel-ssh",
        "show payload 26624",
    )


def test_device_memory_trend_over_the_steady_state(tmp_path: Path) -> None:
    state = LabState(run_id="load-t", results_dir=tmp_path)
    state.resources = [{"time": 0.0, "users": 5.0, "device_memory_bytes": 1.0}] + [
        {"time": float(t), "users": 10.0, "device_memory_bytes": 1e8 + 1e6 * t}
        for t in range(1, 121)
    ]
    trend = results.memory_trend(state)
    assert trend["steady_samples"] == 120
    assert trend["slope_bytes_per_min"] == pytest.approx(6e7)
    flat = LabState(run_id="x", results_dir=tmp_path)
    flat.resources = [
        {"time": float(t), "users": 10.0, "device_memory_bytes": 5e8} for t in range(30)
    ]
    assert results.memory_trend(flat)["slope_bytes_per_min"] == 0.0
    assert results.memory_trend(LabState())["slope_bytes_per_min"] is None


def test_every_transport_has_its_user_class_in_both_locustfiles() -> None:
    """Locust finds users by class name in the locustfile: a transport whose class is not
    exported there would be refused as an unknown user at run time."""
    from transport_load import locustfile, locustfile_sweep
    from transport_load.transports import TRANSPORTS
    from transport_load.users import USER_CLASSES

    for key, transport in TRANSPORTS.items():
        assert getattr(locustfile, transport.user_class) is USER_CLASSES[key]
        assert getattr(locustfile_sweep, transport.user_class) is USER_CLASSES[key]


def test_a_sweep_stops_the_previous_transports_users_before_the_next_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From 200 users of ssh-fresh to 1 of ssh-fresh-libssh2: the shape asks for 0 users
    until none of ssh-fresh runs, then ramps the new transport; its step is ramped only when
    its own users run."""
    from transport_load import lab, sweep

    monkeypatch.setattr(lab.STATE, "steps", [])
    options = SimpleNamespace(
        lab_transports="ssh-fresh,ssh-fresh-libssh2",
        lab_steps="1,200",
        lab_step_seconds=10.0,
        lab_spawn_rate=50.0,
    )
    running = {"SshFreshUser": 200, "SshFreshLibssh2User": 0}
    runner = SimpleNamespace(
        environment=SimpleNamespace(parsed_options=options), user_classes_count=running
    )
    shape = sweep.SweepShape()
    shape.runner = runner  # type: ignore[assignment]
    clock = {"t": 5.0}
    monkeypatch.setattr(shape, "get_run_time", lambda: clock["t"])
    assert shape.tick()[0] == 1
    clock["t"] = 15.0
    assert shape.tick() == (200, 50.0, [sweep.USER_CLASSES["ssh-fresh"]])
    clock["t"] = 25.0  # third step: libssh2, 1 user
    libssh2 = sweep.USER_CLASSES["ssh-fresh-libssh2"]
    running["SshFreshUser"] = 1
    assert shape.tick() == (0, 50.0, [libssh2])
    assert lab.STATE.steps[-1].ramped is None
    running.update(SshFreshUser=0, SshFreshLibssh2User=1)
    assert shape.tick() == (1, 50.0, [libssh2])
    assert lab.STATE.steps[-1].ramped is not None


def test_a_web_ui_test_stops_at_the_labs_limit_and_locust_quits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The form's run time can be cleared: the lab's limit stops the test anyway, and a
    stopped test ends the process (the results are written on quitting); headless runs are
    left to Locust's own -t."""
    from datetime import UTC, datetime

    import gevent

    from transport_load import lab

    calls: list[str] = []
    runner = SimpleNamespace(
        state="running", stop=lambda: calls.append("stop"), quit=lambda: calls.append("quit")
    )
    web_ui = SimpleNamespace(stop=lambda: calls.append("web_ui.stop"))
    environment: Any = SimpleNamespace(runner=runner, web_ui=web_ui, stop_timeout=10)
    monkeypatch.setattr(lab.STATE, "started_at", datetime.now(UTC))

    monkeypatch.setattr(lab.STATE, "web_ui_limit_s", None)
    lab._test_stop(environment)
    gevent.sleep(0)
    assert calls == []

    monkeypatch.setattr(lab.STATE, "web_ui_limit_s", 60.0)
    lab._stop_at_the_limit(environment)
    assert calls == ["stop"]
    runner.state = "stopped"
    lab._stop_at_the_limit(environment)
    lab._test_stop(environment)
    gevent.sleep(0)
    assert calls == ["stop", "quit", "web_ui.stop"]


def test_the_master_gives_a_silent_worker_up_only_after_the_labs_limit() -> None:
    """The master reads Locust's module-level liveness each time a worker connects or sends a
    heartbeat; importing the lab's hooks (what a locustfile does) sets it."""
    from locust import runners

    from transport_load import lab, locustfile  # noqa: F401

    assert runners.HEARTBEAT_LIVENESS == lab.WORKER_SILENCE_S
    assert lab.WORKER_SILENCE_S >= 10 * runners.HEARTBEAT_INTERVAL


STREAM = ("gnmi-stream", "gnmi/stream", "grpcio 1.85.3")


def test_a_gnmi_stream_step_weighs_updates_delivered_against_updates_owed(
    tmp_path: Path,
) -> None:
    """Two streams at 100 ms owe 20 updates a second: the first step gets them all within an
    interval, the second (4 streams, 40 owed) gets 30 a second and falls behind; the device's
    counters over each window sit beside them."""
    state = LabState(run_id="sweep-g", kind="sweep", results_dir=tmp_path)
    for second in range(1000, 1020):
        per_second = 20 if second < 1010 else 30
        for n in range(per_second):
            state.collector.record(second + n / 100, STREAM, 3.0 + n % 5, 90, False)
        state.device_gnmi.append(
            {
                "time": second + 0.5,
                "device_gnmi_subscriptions": 2.0 if second < 1010 else 4.0,
                "device_gnmi_updates_total": 25.0 * (second - 1000),
                "device_gnmi_dropped_subscriptions_total": 0.0 if second < 1015 else 1.0,
            }
        )
    state.steps = [
        StepWindow("gnmi-stream", 2, 999.0, ramped=999.5, ended=1010.0, interval_ms=100.0),
        StepWindow("gnmi-stream", 4, 1010.0, ramped=1010.0, ended=1020.0, interval_ms=100.0),
    ]
    section = results.sweep_section(state)
    kept, behind = section["steps"]
    assert kept["delivered_updates_per_s"] == 20.0
    assert kept["expected_updates_per_s"] == 20.0
    assert not kept["behind"]
    assert not kept["knee"]
    assert kept["device_gnmi_subscriptions"] == 2.0
    assert kept["device_gnmi_updates_per_s"] == pytest.approx(25.0)
    assert kept["device_gnmi_dropped_subscriptions"] == 0.0
    assert behind["delivered_ratio"] == pytest.approx(0.75)
    assert behind["behind"]
    assert behind["knee"]
    assert behind["device_gnmi_dropped_subscriptions"] == 1.0
    assert section["stream_capacity"] == {
        "gnmi-stream": [{"interval_ms": 100.0, "held_streams": 2, "behind_at_streams": 4}]
    }
    assert "gnmi-stream" not in section["knees"]
    points = results.step_points(state, section)
    assert [point.fields[LoadStepField.KNEE] for point in points] == [False, True]


def test_a_sweep_stops_every_stream_before_it_changes_the_sample_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gnmi-stream at 1000 ms then 100 ms, 1 and 5 streams each: at the change of interval
    the shape asks for 0 users until none runs, then writes the new interval into the run's
    options (which reach the workers with the next spawn message) and starts the step."""
    from transport_load import lab, sweep

    monkeypatch.setattr(lab.STATE, "steps", [])
    options = SimpleNamespace(
        lab_transports="gnmi-stream",
        lab_steps="1,5",
        lab_step_seconds=10.0,
        lab_spawn_rate=50.0,
        lab_gnmi_intervals="1000,100",
        lab_gnmi_interval_ms=100.0,
    )
    running = {"GnmiStreamUser": 0}
    runner = SimpleNamespace(
        environment=SimpleNamespace(parsed_options=options), user_classes_count=running
    )
    shape = sweep.SweepShape()
    shape.runner = runner  # type: ignore[assignment]
    clock = {"t": 5.0}
    monkeypatch.setattr(shape, "get_run_time", lambda: clock["t"])
    streams = sweep.USER_CLASSES["gnmi-stream"]
    assert shape.tick() == (1, 50.0, [streams])
    assert options.lab_gnmi_interval_ms == 1000.0
    running["GnmiStreamUser"] = 5
    clock["t"] = 15.0
    assert shape.tick() == (5, 50.0, [streams])
    clock["t"] = 25.0  # third step: 1 stream at 100 ms
    assert shape.tick() == (0, 50.0, [streams])
    assert options.lab_gnmi_interval_ms == 1000.0
    running["GnmiStreamUser"] = 0
    assert shape.tick() == (1, 50.0, [streams])
    assert options.lab_gnmi_interval_ms == 100.0
    assert [(s.users, s.interval_ms) for s in lab.STATE.steps] == [
        (1, 1000.0),
        (5, 1000.0),
        (1, 100.0),
    ]
