"""NETCONF framing x reply-size sweeps: plan lists, mode expansion, distinct series."""

from prometheus_client import generate_latest

from bench_runner.modes import MODES_BY_NAME, select_modes, sweep_netconf
from bench_runner.plan import parse_plan
from bench_runner.results import ModeRun, RunResult
from bench_runner.sinks.influx import run_points
from bench_runner.sinks.pushgateway import run_registry


def test_plan_accepts_one_value_or_lists() -> None:
    single = parse_plan("netconf_framing: '1.0'\nnetconf_reply_bytes: 2048\n", "t")
    assert single.netconf_framings() == ["1.0"]
    assert single.netconf_reply_sizes() == [2048]
    swept = parse_plan(
        "netconf_framing: ['1.0', '1.1', '1.0']\n"
        "netconf_reply_bytes: [1024, 10240, 102400, 1048576]\n",
        "t",
    )
    assert swept.netconf_framings() == ["1.0", "1.1"]
    assert swept.netconf_reply_sizes() == [1024, 10240, 102400, 1048576]


def test_sweep_expands_netconf_modes_only() -> None:
    selected = select_modes(
        ["ssh/reuse-conn", "netconf/reuse-session", "netconf/edit-commit"], ["floor", "ncclient"]
    ).modes
    swept = sweep_netconf(selected, ["1.0", "1.1"], [1024, 10240])
    labels = [mode.label() for mode in swept]
    assert labels[0] == "ssh/reuse-conn asyncssh"
    assert labels[1:5] == [
        "netconf/reuse-session asyncssh framing=1.0 reply_bytes=1024",
        "netconf/reuse-session asyncssh framing=1.0 reply_bytes=10240",
        "netconf/reuse-session asyncssh framing=1.1 reply_bytes=1024",
        "netconf/reuse-session asyncssh framing=1.1 reply_bytes=10240",
    ]
    assert "netconf/reuse-session ncclient framing=1.1 reply_bytes=10240" in labels
    # The reply size does not apply to edit-commit: one variant per framing.
    assert [label for label in labels if label.startswith("netconf/edit-commit asyncssh")] == [
        "netconf/edit-commit asyncssh framing=1.0",
        "netconf/edit-commit asyncssh framing=1.1",
    ]
    assert len(labels) == len(set(labels))


def test_parameters_become_tags_and_labels(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    template = run.modes[0]
    variants = [
        template.model_copy(
            update={
                "mode": "netconf/reuse-session",
                "transport": "netconf",
                "parameters": {"framing": framing, "reply_bytes": 1024},
            }
        )
        for framing in ("1.0", "1.1")
    ]
    run = run.model_copy(update={"modes": [*run.modes, *variants]})
    mode_runs = [*mode_runs, *(ModeRun(variant, mode_runs[0].records) for variant in variants)]

    summaries = [
        point for point in run_points(run, mode_runs) if point.measurement == "mode_summary"
    ]
    netconf_tags = [point.tags for point in summaries if point.tags["mode"].startswith("netconf")]
    assert [(tags["framing"], tags["reply_bytes"]) for tags in netconf_tags] == [
        ("1.0", "1024"),
        ("1.1", "1024"),
    ]
    assert "framing" not in summaries[0].tags

    exposition = generate_latest(run_registry(run)).decode()
    p50 = [
        line
        for line in exposition.splitlines()
        if line.startswith("transport_bench_mode_p50_seconds{")
    ]
    assert len(p50) == 4  # two plain modes + two framings, none overwritten
    assert sum('framing="1.0"' in line for line in p50) == 1
    assert MODES_BY_NAME["https/keep-alive"].label() == "https/keep-alive httpx"
