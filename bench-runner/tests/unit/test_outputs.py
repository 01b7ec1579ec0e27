import csv
import json
from dataclasses import replace
from pathlib import Path

from bench_runner.modes import client_versions
from bench_runner.outputs import write_outputs
from bench_runner.phases import summarize_phases
from bench_runner.results import ModeRun, RunnerInfo, RunResult
from bench_runner.sinks.influx import run_points
from bench_runner.sinks.publish import published_only
from bench_runner.wire.model import WireCounts, WireIteration, summarize_wire


def test_csv_and_manifest(tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    paths = write_outputs(
        run, mode_runs, tmp_path, ["bench-runner", "run"], client_versions(), "27.3.1"
    )
    assert [p.name for p in paths] == ["iterations.csv", "modes.csv", "manifest.json"]
    with (tmp_path / run.run_id / "iterations.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4
    assert rows[3]["mode"] == "ssh/reuse-conn"
    assert rows[3]["ok"] == "False"
    assert rows[3]["error"] == "show clock: % Invalid x"
    with (tmp_path / run.run_id / "modes.csv").open() as handle:
        modes = list(csv.DictReader(handle))
    assert [m["mode"] for m in modes] == ["https/keep-alive", "ssh/reuse-conn"]
    assert float(modes[0]["p50_ms"]) == 32.0
    https, ssh = modes
    assert (https["tls_group"], https["tls_alpn"], https["ssh_kex"]) == ("x25519", "http/1.1", "")
    assert ssh["ssh_kex"] == "curve25519-sha256|sntrup761x25519-sha512@openssh.com"
    assert ssh["ssh_client_id"] == "SSH-2.0-paramiko_5.1.0"
    assert (ssh["handshakes"], ssh["handshakes_incomplete"], ssh["handshakes_varied"]) == (
        "2",
        "0",
        "ssh_kex",
    )
    manifest = json.loads((tmp_path / run.run_id / "manifest.json").read_text())
    assert manifest["lab"]["commit"] == "deadbeef"
    assert manifest["lab"]["engine"] == "27.3.1"
    assert manifest["runner"]["kernel"]
    assert manifest["netem"]["engine"] == "nfq"
    assert manifest["command"] == ["bench-runner", "run"]
    for library in (
        "asyncssh",
        "httpx",
        "paramiko",
        "netmiko",
        "scrapli",
        "requests",
        "openssh",
        "python-ssl",
        "openssl",
    ):
        assert manifest["libraries"][library], library


def test_manifest_names_the_device_and_runner_ssh_tls_versions(
    tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    """What the handshakes depend on, in every run's context: the device's OpenSSH, nginx,
    HTTP/3 server, gNMI server and OpenSSL (from its /version) and the runner's OpenSSL and
    OpenSSH client."""
    run, mode_runs = sample_run
    run.device = {
        "openssh_version": "OpenSSH_10.0p2",
        "nginx_version": "nginx/1.26.3",
        "http3": "quic-go v0.65.0",
        "gnmi": "openconfig/gnmi v0.14.1, grpc-go v1.85.0",
        "openssl_version": "OpenSSL 3.5.1",
    }
    run.runner = RunnerInfo(
        version="0.1.0",
        python="3.13.5",
        openssl="OpenSSL 3.5.1 1 Jul 2025",
        openssh="OpenSSH_10.0p2 Debian-7, OpenSSL 3.5.1 1 Jul 2025",
    )
    write_outputs(run, mode_runs, tmp_path, ["bench-runner", "run"], {}, None)
    manifest = json.loads((tmp_path / run.run_id / "manifest.json").read_text())
    device = manifest["device"]
    assert (device["sshd"], device["nginx"], device["http3"], device["openssl"]) == (
        "OpenSSH_10.0p2",
        "nginx/1.26.3",
        "quic-go v0.65.0",
        "OpenSSL 3.5.1",
    )
    assert device["gnmi"] == "openconfig/gnmi v0.14.1, grpc-go v1.85.0"
    assert manifest["runner"]["openssl"] == "OpenSSL 3.5.1 1 Jul 2025"
    assert manifest["runner"]["openssh"].startswith("OpenSSH_10.0p2")


def test_modes_refused_by_the_rtt_gate_are_not_published(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    mode_runs[1].result.published = False
    published_run, published_mode_runs = published_only(run, mode_runs)
    assert [m.mode for m in published_run.modes] == ["https/keep-alive"]
    assert [r.result.mode for r in published_mode_runs] == ["https/keep-alive"]
    assert len(run.modes) == 2  # results.json keeps both


def _with_wire_and_phases(run: RunResult, mode_runs: list[ModeRun]) -> None:
    """The first mode of the sample run, counted on the wire and with phases."""
    counts = WireIteration(
        round_trips=2,
        connects=1,
        packets_out=5,
        packets_in=4,
        segments_out=5,
        segments_in=6,
        bytes_out=300,
        bytes_in=4000,
        ip_bytes_out=560,
        ip_bytes_in=4312,
    )
    mode_run = mode_runs[0]
    mode_run.records[:] = [
        replace(record, wire=counts, phases={"tcp_connect": 1.5, "commands": 20.0})
        for record in mode_run.records
    ]
    mode_run.result.wire = WireCounts(
        available=True,
        interface="eth0",
        per_iteration=[counts, counts],
        p50=summarize_wire([counts, counts]),
        capture_drops=0,
    )
    mode_run.result.phases = summarize_phases([r.phases or {} for r in mode_run.records])
    mode_runs[1].result.wire = WireCounts(available=False, reason="no CAP_NET_RAW")


def test_wire_and_phase_columns(
    tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, mode_runs = sample_run
    _with_wire_and_phases(run, mode_runs)
    write_outputs(run, mode_runs, tmp_path, ["bench-runner", "run"], {}, None)
    with (tmp_path / run.run_id / "iterations.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["wire_round_trips"] == "2"
    assert rows[0]["wire_bytes_in"] == "4000"
    assert rows[0]["phase_tcp_connect_ms"] == "1.5"
    assert rows[0]["phase_auth_ms"] == ""
    assert rows[3]["wire_round_trips"] == ""  # not counted: empty, never 0
    with (tmp_path / run.run_id / "modes.csv").open() as handle:
        modes = list(csv.DictReader(handle))
    assert modes[0]["wire_packets_out_p50"] == "5.0"
    assert modes[0]["phase_commands_p50_ms"] == "20.0"
    assert modes[1]["wire_round_trips_p50"] == ""


def test_wire_and_phase_fields_in_influxdb(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    _with_wire_and_phases(run, mode_runs)
    points = run_points(run, mode_runs)
    iteration = next(p for p in points if p.measurement == "iteration")
    assert iteration.fields["wire_round_trips"] == 2
    assert iteration.fields["phase_commands_ms"] == 20.0
    assert iteration.fields["wall_ms"] == 31.5  # existing fields unchanged
    summary = next(p for p in points if p.measurement == "mode_summary")
    assert summary.fields["wire_bytes_in_p50"] == 4000.0
    assert summary.fields["phase_tcp_connect_p50_ms"] == 1.5
    uncounted = [
        p for p in points if p.measurement == "iteration" and p.tags["mode"] == "ssh/reuse-conn"
    ]
    assert all(p.fields["wire_round_trips"] is None for p in uncounted)
