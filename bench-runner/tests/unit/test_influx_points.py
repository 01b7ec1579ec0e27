"""What the runner writes to InfluxDB: one distinct point per iteration, per mode and per
run, each series named by (mode, client and version, parameters)."""

import ast
import sys
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from bench_runner import influx_schema
from bench_runner.hop_split import HOP_PARTS, split_hops, summarize_hops
from bench_runner.influx_schema import (
    HANDSHAKE_TAGS,
    SSH_HANDSHAKE_TAGS,
    TLS_HANDSHAKE_TAGS,
    Measurement,
    field_names,
    hop_p50_field,
    phase_p50_field,
    tag_names,
    wire_p50_field,
)
from bench_runner.phases import PHASES, summarize_phases
from bench_runner.resources import ResourceUsage
from bench_runner.results import IterationRecord, ModeRun, RunResult, StreamSummary
from bench_runner.rtt_model import RttModel
from bench_runner.rtt_probe import RttCheck
from bench_runner.sinks.influx import epoch_ns, run_points
from bench_runner.sinks.line_protocol import format_points
from bench_runner.verdicts.model import Verdict
from bench_runner.wire.model import FIELDS as WIRE_COUNTERS
from bench_runner.wire.model import WireCounts, WireIteration, summarize_wire
from bench_runner.wire.timeline import PARTS as TIME_PARTS
from bench_runner.wire.timeline import TimeSplit, summarize_splits


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
    assert summary.fields["connections_per_iteration"] == netconf.connections_per_iteration
    assert summary.fields["commands_per_request"] == netconf.commands_per_request
    assert "client_version" not in summary.fields
    iteration = next(p for p in points if p.measurement == "iteration")
    # What the connections negotiated tags the summary only: iterations keep the series'.
    assert iteration.tags == {
        key: value for key, value in summary.tags.items() if key not in HANDSHAKE_TAGS
    }


def test_mode_summaries_carry_what_their_connections_negotiated(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    https, ssh = [p for p in run_points(run, mode_runs) if p.measurement == "mode_summary"]
    assert {key: https.tags[key] for key in TLS_HANDSHAKE_TAGS} == {
        "tls_version": "TLSv1.3",
        "tls_cipher": "TLS_AES_256_GCM_SHA384",
        "tls_group": "x25519",
        "tls_alpn": "http/1.1",
        "tls_resumed": "false",
        "tls_hello_retry": "false",
    }
    assert not set(https.tags) & set(SSH_HANDSHAKE_TAGS)
    # Two connections, two key exchanges: the tag names both, sorted.
    assert ssh.tags["ssh_kex"] == "curve25519-sha256|sntrup761x25519-sha512@openssh.com"
    assert ssh.tags["ssh_mac_sc"] == "hmac-sha2-256"
    assert (https.fields["handshakes"], ssh.fields["handshakes"]) == (1, 2)
    line = format_points([ssh])
    assert ",ssh_host_key=ssh-ed25519," in line
    assert "ssh_client_id" not in line  # recorded in results.json, not a tag


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


WIRE = WireIteration(
    round_trips=3,
    connects=1,
    packets_out=5,
    packets_in=6,
    segments_out=5,
    segments_in=5,
    bytes_out=100,
    bytes_in=2000,
    ip_bytes_out=300,
    ip_bytes_in=2300,
)
SPLIT = TimeSplit(
    network_ms=1.0,
    device_ms=2.0,
    client_ms=3.0,
    stall_ms=0.5,
    stalls=1,
    device_stalls=1,
    client_stalls=0,
    unaccounted_ms=0.01,
)
EVERY_PHASE = dict.fromkeys(PHASES, 1.0)
HOPS = split_hops(SPLIT, lan_round_trips=2, lan_rtt_ms=0.5, relay_lan=1.5)


def with_everything(mode_run: ModeRun, parameters: dict[str, str | int]) -> ModeRun:
    """``mode_run`` with all a mode and its iterations can carry."""
    records = [
        replace(
            record, wire=WIRE, phases=EVERY_PHASE, time_split=SPLIT, hop_split=HOPS, excluded="x"
        )
        for record in mode_run.records
    ]
    usage = ResourceUsage(
        elapsed_s=0.1,
        runner_cpu_s=0.02,
        runner_rss_peak_bytes=5,
        device_cpu_s=0.01,
        device_memory_peak_bytes=7,
        device_samples=2,
        device_error=None,
    )
    model = RttModel(
        local_run_id="l",
        local_p50_ms=1.0,
        round_trips=3.0,
        round_trips_source="wire",
        added_rtt_ms=30.0,
        predicted_p50_ms=91.0,
    )
    check = RttCheck(
        applies=True,
        tolerance_ms=3.0,
        added_rtt_ms=30.1,
        deviation_ms=0.1,
        passed=True,
        reason=None,
    )
    verdict = Verdict(
        verdict="regression",
        median_ms=36.0,
        nights=9,
        change_pct=1.0,
        robust_z=4.0,
        threshold_pct=5.0,
        baseline_median_ms=32.0,
        baseline_mad_ms=0.5,
        rule="tonight",
        changepoint_run_id="n3",
    )
    mode = mode_run.result.model_copy(
        update={
            "parameters": parameters,
            "resources": usage,
            "wire": WireCounts(available=True, per_iteration=[WIRE], p50=summarize_wire([WIRE])),
            "phases": summarize_phases([EVERY_PHASE]),
            "time_split": summarize_splits(30.0, [SPLIT]),
            "hop_split": summarize_hops(0.5, [HOPS]),
            "verdict": verdict,
            "rtt_model": model,
            "rtt_check": check,
            "speedup_vs_baseline": 1.5,
            "p50_vs_floor": 1.2,
            "transfer_bytes": 1000,
            "throughput_mb_s": 2.5,
            "stream": StreamSummary(
                updates_per_second=900.0,
                updates=1800,
                window_s=2.0,
                sample_interval_ms=1.0,
                path="/interfaces/interface[name=Loopback0]/state/counters",
            ),
        }
    )
    return ModeRun(mode, records)


def test_every_name_a_run_writes_is_in_the_schema(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    """Each measurement, tag and field of a run with everything a mode can carry is named
    in influx_schema, where the dashboards' generator reads them."""
    run, mode_runs = sample_run
    first, second = mode_runs  # every parameter between them
    full = [
        with_everything(first, {"framing": "1.1", "reply_bytes": 1024, "bulk_size": "10M"}),
        with_everything(second, {"hosts": 2, "repeats": 3}),
    ]
    judged = run.model_copy(update={"modes": [mode_run.result for mode_run in full]})
    points = run_points(judged, full)
    assert {point.measurement for point in points} == {
        Measurement.RUN,
        Measurement.ITERATION,
        Measurement.MODE_SUMMARY,
        Measurement.VERDICT,
    }
    for point in points:
        declared = field_names(point.measurement, PHASES, WIRE_COUNTERS, TIME_PARTS, HOP_PARTS)
        assert set(point.fields) <= declared, (point.measurement, set(point.fields) - declared)
        assert set(point.tags) <= tag_names(), set(point.tags) - tag_names()
    summary = next(point for point in points if point.measurement == Measurement.MODE_SUMMARY)
    assert summary.fields[wire_p50_field("round_trips")] == 3.0
    assert summary.fields[phase_p50_field("auth")] == 1.0
    assert summary.fields[hop_p50_field("lan_network")] == 1.0
    assert summary.fields[hop_p50_field("device")] == 0.5


def test_the_schema_module_is_pure() -> None:
    """The load generator's and the dashboards' images install bench-runner without its
    dependencies: the schema imports nothing beyond the standard library."""
    tree = ast.parse(Path(influx_schema.__file__).read_text(encoding="utf-8"))
    imported = {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
        )
    }
    assert imported <= sys.stdlib_module_names, imported - sys.stdlib_module_names
