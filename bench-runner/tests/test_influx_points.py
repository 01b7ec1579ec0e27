"""What the runner writes to InfluxDB: one distinct point per iteration, per mode and per
run, each series named by (mode, client and version, parameters)."""

from datetime import timedelta

from bench_runner.results import IterationRecord, ModeRun, RunResult
from bench_runner.rtt_probe import RttCheck
from bench_runner.sinks.influx import epoch_ns, run_points
from bench_runner.sinks.line_protocol import format_points


def test_every_point_is_stored_even_when_iterations_start_in_the_same_instant(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    """InfluxDB keeps one point per (measurement, tag set, timestamp): a batch in which
    two points share all three loses one of them."""
    run, mode_runs = sample_run
    fast = mode_runs[0]
    started_at = fast.records[0].started_at
    same_instant = [IterationRecord(index, started_at, 1.0, None) for index in range(1, 101)]
    points = run_points(run, [ModeRun(fast.result, same_instant)])
    identities = {(p.measurement, p.series(), p.timestamp_ns) for p in points}
    assert len(identities) == len(points) == 1 + 100 + 1
    assert format_points(points).count("\n") == len(points)


def test_series_tags_name_mode_client_version_and_parameters(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    netconf = mode_runs[0].result.model_copy(
        update={
            "mode": "netconf/batch-rpc",
            "transport": "netconf",
            "client": "ncclient",
            "client_version": "0.6.19",
            "parameters": {"framing": "1.1", "reply_bytes": 1024},
        }
    )
    points = run_points(run, [ModeRun(netconf, mode_runs[0].records)])
    summary = next(p for p in points if p.measurement == "mode_summary")
    assert (
        summary.tags["series"] == "netconf/batch-rpc · ncclient 0.6.19 · framing=1.1 "
        "reply_bytes=1024"
    )
    assert summary.tags["client_version"] == "0.6.19"
    assert summary.tags["sweep"] == run.run_id  # a single-job run is its own sweep
    assert summary.fields["parameter_reply_bytes"] == 1024
    assert "parameter_framing" not in summary.fields  # text stays a tag only
    assert summary.fields["commands_per_iteration"] == 1
    assert summary.fields["expected_round_trips"] == netconf.expected_round_trips
    assert "client_version" not in summary.fields
    iteration = next(p for p in points if p.measurement == "iteration")
    assert iteration.tags == summary.tags


def test_long_client_versions_are_shortened_in_the_series_name(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    mode = (
        sample_run[0]
        .modes[0]
        .model_copy(
            update={
                "client": "openssh",
                "client_version": "OpenSSH_9.2p1 Debian-2+deb12u7, OpenSSL 3.0.17",
            }
        )
    )
    assert mode.series == "https/keep-alive · openssh OpenSSH_9.2p1 Debian-2+deb12u7"


def test_each_mode_summary_is_stamped_when_its_mode_finished(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    finished = [run.started_at + timedelta(seconds=10 * i, microseconds=7) for i in (1, 2)]
    for mode_run, moment in zip(mode_runs, finished, strict=True):
        mode_run.result.finished_at = moment
    summaries = [p for p in run_points(run, mode_runs) if p.measurement == "mode_summary"]
    assert [p.timestamp_ns for p in summaries] == [epoch_ns(moment) for moment in finished]
    # Exact to the microsecond: a float of seconds would round it.
    assert epoch_ns(finished[0]) % 10_000 == 7_000


def test_the_run_point_annotates_the_run(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    sweep_run = run.model_copy(
        update={"run_id": "nightly-1-regional", "sweep": "nightly-1", "plan": "nightly"}
    )
    [point] = [p for p in run_points(sweep_run, mode_runs) if p.measurement == "run"]
    assert point.tags == {
        "run_id": "nightly-1-regional",
        "sweep": "nightly-1",
        "profile": "regional",
        "engine": "nfq",
        "plan": "nightly",
    }
    assert point.timestamp_ns == epoch_ns(run.started_at)
    assert point.fields["errors"] == 1
    assert point.fields["ok"] is False
    assert point.fields["duration_s"] == 60.0
    assert point.fields["title"] == (
        "nightly-1-regional: plan nightly, 2 modes, 1 failed iterations, commit deadbeef"
    )


def test_model_fields_carry_the_added_rtt_and_the_prediction(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    mode = mode_runs[0].result
    mode.rtt_check = RttCheck(
        applies=True,
        tolerance_ms=3.0,
        added_rtt_ms=30.1,
        deviation_ms=0.1,
        passed=True,
        reason=None,
    )
    summary = next(p for p in run_points(run, mode_runs) if p.measurement == "mode_summary")
    assert summary.fields["added_rtt_ms"] == 30.1
    assert summary.fields["rtt_model_p50_ms"] is None  # no local reference: no model
