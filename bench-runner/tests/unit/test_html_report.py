"""The HTML report and the comparison, from synthetic results documents: which charts are
drawn or skipped (with a note), the static images, the page's figures, the statistics."""

import json
import re
import statistics
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import pytest
from typer.testing import CliRunner

from bench_runner.cli import app
from bench_runner.html_report import build_comparison, build_report, charts
from bench_runner.html_report.build import PNG_SCALE, format_number
from bench_runner.html_report.compare import change, median_difference_ci
from bench_runner.html_report.runs import find_run, sweep_runs, trend_runs
from handshake_samples import ssh_handshakes, tls_handshakes
from pngcheck import assert_drawn

START = datetime(2026, 11, 20, 2, 0, tzinfo=UTC)


def mode_doc(mode: str, client: str, samples: list[float], **extra: Any) -> dict[str, Any]:
    transport = mode.split("/")[0]
    p50 = float(np.percentile(samples, 50))
    parameters = extra.pop("parameters", None)
    label = " · ".join(
        [mode, f"{client} 1.0"]
        + ([" ".join(f"{k}={v}" for k, v in parameters.items())] if parameters else [])
    )
    document = {
        "mode": mode, "transport": transport, "client": client, "client_version": "1.0",
        "iterations": len(samples), "warmup": 1, "commands": ["show version"],
        "configured_rtt_ms": 30.0, "verified_rtt_ms": 30.4, "min_round_trips": 3, "ok": True,
        "published": True, "samples_ms": samples, "error_messages": [], "series": label,
        "parameters": parameters, "speedup_vs_baseline": None,
        "p50_vs_floor": 1.0 if client in ("asyncssh", "httpx") else 1.5,
        "stats": {"n": len(samples), "errors": 0, "p50_ms": p50,
                  "p95_ms": float(np.percentile(samples, 95)), "mean_ms": statistics.mean(samples)},
        "resources": {"elapsed_s": sum(samples) / 900, "runner_cpu_s": 0.05,
                      "runner_rss_peak_bytes": 90_000_000, "device_cpu_s": 0.02},
        "time_split": {"p50_ms": {"network": 0.8 * p50, "device": 0.05 * p50,
                                  "client": 0.15 * p50, "stall": 0.0}},
        "phases": {"p50_ms": {"tcp_connect": 0.2 * p50, "commands": 0.7 * p50}},
    }  # fmt: skip
    document.update(extra)
    return document


def run_doc(
    results: Path, run_id: str, profile: str, rtt: float, modes: list[dict[str, Any]],
    sweep: str | None = None, plan: str = "default", started: datetime = START,
) -> Path:  # fmt: skip
    document = {
        "schema_version": 3, "run_id": run_id, "sweep": sweep or run_id, "plan": plan,
        "started_at": started.isoformat().replace("+00:00", "Z"),
        "finished_at": (started + timedelta(minutes=2)).isoformat().replace("+00:00", "Z"),
        "lab": {"commit": "abc123def456", "images": "transport-lab/*:dev"},
        "runner": {"version": "0.1.0", "python": "3.11.2"}, "device": {"hostname": "lab-r1"},
        "target": {"host": "device", "ssh_port": 22, "https_port": 443, "name": None},
        "profile": {"name": profile, "rtt_ms": rtt, "jitter_ms": 0.0, "loss_pct": 0.0,
                    "rate_mbit": 0.0, "engine": "nfq", "engine_reason": "test"},
        "modes": modes, "ok": True, "baseline": None, "not_applicable": [],
    }  # fmt: skip
    path = results / run_id
    path.mkdir(parents=True)
    (path / "results.json").write_text(json.dumps(document))
    manifest = {"command": ["bench-runner", "run"], "libraries": {"asyncssh": "2.24.1"},
                "runner": {"kernel": "6.1", "platform": "linux"}}  # fmt: skip
    (path / "manifest.json").write_text(json.dumps(manifest))
    return path


def floor_modes(scale: float = 1.0) -> list[dict[str, Any]]:
    return [
        mode_doc(
            "ssh/pty-fresh", "asyncssh", [scale * v for v in (120, 125, 123, 130, 128, 126, 122)]
        ),
        mode_doc(
            "ssh/pty-fresh", "paramiko", [scale * v for v in (150, 155, 149, 160, 152, 157, 151)]
        ),
        mode_doc(
            "https/keep-alive", "httpx", [scale * v for v in (31, 32, 33, 31.5, 32.5, 31.8, 32.2)]
        ),
    ]


def check_report(directory: Path) -> dict[str, Any]:
    """Every drawn chart has a PNG of twice its SVG's size with something in it; every
    skipped one a note; the page names no external resource."""
    summary: dict[str, Any] = json.loads((directory / "report.json").read_text())
    for chart in summary["charts"]:
        if chart["png"]:
            root = ElementTree.parse(directory / chart["svg"]).getroot()
            width, height = round(float(root.attrib["width"])), round(float(root.attrib["height"]))
            assert_drawn(directory / chart["png"], width * PNG_SCALE, height * PNG_SCALE)
        else:
            assert chart["note"], chart
    html = (directory / "index.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "window.vegaEmbed" in html  # the bundle is inline
    return summary


def drawn(summary: dict[str, Any]) -> set[str]:
    return {chart["name"] for chart in summary["charts"] if chart["png"]}


def test_single_run_report(tmp_path: Path) -> None:
    path = run_doc(tmp_path, "one", "regional", 30.0, floor_modes())
    files = build_report(tmp_path, [find_run(tmp_path, "on")])
    assert files.html == path / "report" / "index.html"
    summary = check_report(files.directory)
    assert drawn(summary) == {"latency", "libraries", "resources", "time-accounting", "phases"}
    notes = {chart["name"]: chart["note"] for chart in summary["charts"] if not chart["png"]}
    assert notes["load"].startswith("no load run")
    assert notes["sweep"].startswith("not a sweep")
    html = files.html.read_text()
    for mode in json.loads((path / "results.json").read_text())["modes"]:
        value = json.dumps(mode["stats"]["p50_ms"])
        assert f'data-path="stats.p50_ms" data-value="{value}">' in html
        assert f">{format_number(mode['stats']['p50_ms'])}</span>" in html
    assert "abc123def456" in html
    assert "transport-lab/*:dev" in html
    assert "No verdicts in these runs" in html
    assert html.count("<p>") >= 2  # methodology and caveats
    # A chart pasted on its own says what it shows: profile, date, lab commit, client versions.
    latency = (files.directory / "charts" / "latency.svg").read_text()
    for context in ("profile regional", "2026-11-20", "lab abc123def456", "paramiko 1.0"):
        assert context in latency, context


def test_the_mode_table_says_what_the_connections_negotiated(tmp_path: Path) -> None:
    modes = floor_modes()
    modes[0]["handshakes"] = ssh_handshakes({"curve25519-sha256": 4}).model_dump()
    modes[1]["handshakes"] = ssh_handshakes(
        {"curve25519-sha256": 3, "sntrup761x25519-sha512@openssh.com": 1}
    ).model_dump()
    modes[2]["handshakes"] = tls_handshakes({"false": 1, "true": 4}).model_dump()
    modes.append(mode_doc("https/batch-post", "httpx", [10, 11, 12]))  # written before v4
    run_doc(tmp_path, "hs", "local", 0.0, modes)
    html = build_report(tmp_path, [find_run(tmp_path, "hs")]).html.read_text()
    assert "kex curve25519-sha256, host key ssh-ed25519" in html
    assert "cipher aes128-ctr, MAC hmac-sha2-256" in html
    assert "kex curve25519-sha256 (3) | sntrup761x25519-sha512@openssh.com (1), host key" in html
    assert "TLSv1.3 TLS_AES_256_GCM_SHA384, group x25519" in html
    assert "ALPN http/1.1, resumed false (1) | true (4), HelloRetryRequest false" in html
    assert "differed between them: tls_resumed" in html
    assert 'data-path="handshakes.connections" data-value="5">5</span> connections' in html
    assert (
        "SSH curve25519-sha256 (asyncssh, paramiko); "
        "SSH sntrup761x25519-sha512@openssh.com (paramiko); TLS x25519 (httpx)"
    ) in html


def test_sweep_trends_load_and_verdicts(tmp_path: Path) -> None:
    for night in range(3):  # nights of the plan at regional, the last one a sweep's member
        modes = floor_modes(1.0 + 0.01 * night)
        if night == 2:
            for mode in modes:
                mode["rtt_model"] = {"predicted_p50_ms": mode["stats"]["p50_ms"] * 0.9}
                median = mode["stats"]["p50_ms"]
                mode["verdict"] = {
                    "verdict": "unchanged", "median_ms": median, "baseline_median_ms": 1.0,
                    "change_pct": 1.0, "nights": 2,
                }  # fmt: skip
        run_doc(tmp_path, f"n{night}-regional", "regional", 30.0, modes, sweep=f"n{night}",
                plan="nightly", started=START + timedelta(days=night))  # fmt: skip
    run_doc(tmp_path, "n2-local", "local", 0.0, floor_modes(0.2), sweep="n2", plan="nightly",
            started=START + timedelta(days=2) - timedelta(minutes=5))  # fmt: skip
    load_dir = tmp_path / "n2-regional" / "load"
    load_dir.mkdir()
    (load_dir / "locust_stats_history.csv").write_text(
        "Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,95%\n"
        + "".join(
            f"{1700000000 + s},{s},,Aggregated,{s * 2},0,{30 + s},{40 + s}\n" for s in range(5)
        )
        + "1700000001,1,GET,/x,1,0,1,1\n"
    )
    main = find_run(tmp_path, "n2-regional")
    sweep = sweep_runs(tmp_path, main)
    assert [run.profile for run in sweep] == ["local", "regional"]
    assert [run.run_id for run in trend_runs(tmp_path, main)] == [
        f"n{i}-regional" for i in range(3)
    ]
    files = build_report(tmp_path, sweep, baseline="ssh/pty-fresh")
    summary = check_report(files.directory)
    assert {"sweep", "trends", "load"} <= drawn(summary)
    html = files.html.read_text()
    assert 'data-path="verdict.median_ms"' in html
    assert "unchanged" in html
    assert "speedup vs ssh/pty-fresh" in html
    assert f"{format_number(1.0)}\N{MULTIPLICATION SIGN}" in html  # the baseline against itself


def stream_and_reads(scale: float = 1.0) -> list[dict[str, Any]]:
    """gNMI and RESTCONF reads beside gnmi/stream, whose iterations are update delays."""
    stream = mode_doc("gnmi/stream", "grpc-go", [scale * v for v in (16.0, 17.0, 18.5, 16.5)])
    stream["stream"] = {"updates_per_second": 850.0 / scale}
    return [
        mode_doc("gnmi/reuse-conn", "grpc-go", [scale * v for v in (151, 153, 152)]),
        mode_doc("restconf/keep-alive", "httpx", [scale * v for v in (160, 158, 161)]),
        mode_doc("gnmi/reuse-conn", "pygnmi", [scale * v for v in (170, 171, 172)]),
        stream,
        mode_doc("gnmi/stream", "pygnmi", [scale * v for v in (19.0, 20.0, 21.0)]),
    ]


def test_a_stream_is_charted_as_update_delay_not_request_time(tmp_path: Path) -> None:
    run_doc(tmp_path, "s-local", "local", 0.0, stream_and_reads(0.1), sweep="s")
    path = run_doc(tmp_path, "s-regional", "regional", 30.0, stream_and_reads(), sweep="s")
    runs = sweep_runs(tmp_path, find_run(tmp_path, "s-regional"))
    files = build_report(tmp_path, runs)
    assert {"latency", "stream", "sweep", "libraries"} <= drawn(check_report(files.directory))
    labelled = [(run.profile, run) for run in runs]
    streams = {"gnmi/stream · grpc-go 1.0", "gnmi/stream · pygnmi 1.0"}
    delays = charts.stream(labelled).rows
    assert {row["series"] for row in delays} == streams
    assert {(row["group"], row["one_way_ms"], row["updates_per_second"]) for row in delays} >= {
        ("regional", 30.4 / 2, 850.0)
    }
    for builder in (charts.latency, charts.sweep, charts.libraries):
        assert not {row["series"] for row in builder(labelled).rows} & streams, builder
    html = files.html.read_text()
    document = json.loads((path / "results.json").read_text())
    [table, speedups] = (
        re.findall(rf'<table class="{kind}" data-run="s-regional">(.*?)</table>', html, re.S)[0]
        for kind in ("streams", "speedups")
    )
    for mode in document["modes"]:
        p50 = f'data-series="{mode["series"]}" data-path="stats.p50_ms"'
        stream = mode["mode"] == "gnmi/stream"
        assert (p50 in table, p50 in speedups) == (stream, not stream), mode["series"]
    assert 'data-path="stream.updates_per_second" data-value="850.0">850.0</span>' in table
    # grpc-go's stream recorded its rate in both runs, pygnmi's none: a dash, not a figure
    assert html.count('data-path="stream.updates_per_second"') == 2


def test_published_beside_the_lab(tmp_path: Path) -> None:
    modes = [mode_doc("https/keep-alive", "httpx", [1.1, 1.2, 1.3]),
             mode_doc("ssh/pty-fresh", "asyncssh", [9.0, 9.5, 10.0])]  # fmt: skip
    run_doc(tmp_path, "reproduce-x-clibench", "local", 0.0, modes, plan="reproduce-clibench")
    (tmp_path / "reproduce-x").mkdir()
    (tmp_path / "reproduce-x" / "comparison.md").write_text("# Published benchmarks\n")
    files = build_report(tmp_path, [find_run(tmp_path, "reproduce-x-clibench")])
    summary = check_report(files.directory)
    assert "published" in drawn(summary)
    assert "reproduce-x/comparison.md" in files.html.read_text()


def test_chart_without_data_is_skipped_with_a_note(tmp_path: Path) -> None:
    failed = mode_doc("ssh/reuse-conn", "asyncssh", [1.0])
    failed.update(samples_ms=[], ok=False, error_messages=["iteration 1: timeout"])
    failed["stats"] = {"n": 0, "errors": 1, "p50_ms": None, "p95_ms": None}
    run_doc(tmp_path, "bad", "local", 0.0, [failed])
    summary = check_report(build_report(tmp_path, [find_run(tmp_path, "bad")]).directory)
    assert drawn(summary) == set()
    assert all(chart["note"] for chart in summary["charts"])


def test_comparison(tmp_path: Path) -> None:
    run_doc(tmp_path, "a", "regional", 30.0, floor_modes())
    slower = floor_modes()
    slower[0] = mode_doc("ssh/pty-fresh", "asyncssh", [200, 205, 210, 207, 203, 204])
    slower.append(mode_doc("https/batch-post", "httpx", [10, 11, 12]))
    run_doc(tmp_path, "b", "regional", 30.0, slower)
    files = build_comparison(tmp_path, find_run(tmp_path, "a"), find_run(tmp_path, "b"))
    assert files.directory == tmp_path / "b" / "report" / "compare-a"
    summary = check_report(files.directory)
    assert {"differences", "latency"} <= drawn(summary)
    html = files.html.read_text()
    assert "slower" in html
    assert "Only in B: https/batch-post" in html


def test_change_statistics() -> None:
    rng = np.random.default_rng(1)
    a = list(rng.normal(100, 2, 30))
    b = list(rng.normal(110, 2, 30))
    low, high = median_difference_ci(a, b)
    assert low < float(np.median(b) - np.median(a)) < high
    assert low > 5
    assert high < 15
    judged = change(mode_doc("m/x", "c", a), mode_doc("m/x", "c", b))
    assert judged.verdict == "slower"
    assert judged.p_value is not None
    assert judged.p_value < 1e-6
    same = change(mode_doc("m/x", "c", a), mode_doc("m/x", "c", a[::-1]))
    assert same.verdict == "within noise"
    assert same.ci_low_ms is not None
    assert same.ci_low_ms <= 0 <= (same.ci_high_ms or 0)
    few = change(mode_doc("m/x", "c", [1.0, 2.0]), mode_doc("m/x", "c", [5.0, 6.0]))
    assert few.verdict == "too few samples"
    assert few.p_value is None


def test_format_number() -> None:
    assert format_number(None) == "—"
    assert format_number(1234.5) == "1,234"  # banker's rounding of the 0-digit format
    assert format_number(123.456) == "123.5"
    assert format_number(12.3456, " ms") == "12.35 ms"
    assert format_number(0.12345) == "0.123"
    assert format_number(5) == "5"
    assert format_number(True) == "yes"


def test_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_doc(tmp_path, "a", "regional", 30.0, floor_modes())
    run_doc(tmp_path, "b", "regional", 30.0, floor_modes(1.5), started=START + timedelta(hours=1))
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(app, ["report-html"])  # the latest run
    assert result.exit_code == 0, result.output
    assert (tmp_path / "b" / "report" / "index.html").is_file()
    result = runner.invoke(app, ["report-html", "--last", "2"])
    assert result.exit_code == 0, result.output
    assert "regional" in (tmp_path / "b" / "report" / "index.html").read_text()
    result = runner.invoke(app, ["compare", "a", "b"])
    assert result.exit_code == 0, result.output
    assert "slower" in result.output
    result = runner.invoke(app, ["report-html", "nope"])
    assert result.exit_code == 2


def test_other_documents_under_results_are_ignored(tmp_path: Path) -> None:
    run_doc(tmp_path, "a", "regional", 30.0, floor_modes())
    (tmp_path / "load-x").mkdir()
    (tmp_path / "load-x" / "results.json").write_text('{"load": {"users": 10}}')
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text("{")
    assert [run.run_id for run in sweep_runs(tmp_path, find_run(tmp_path, "a"))] == ["a"]


def test_load_run_report(tmp_path: Path) -> None:
    """A load run (Locust) writes results.json with a `load` section and no modes."""
    path = tmp_path / "load-run"
    (path / "load").mkdir(parents=True)
    load = {
        "started_at": "2026-11-23T02:52:08+00:00", "finished_at": "2026-11-23T02:54:09+00:00",
        "profile": {"name": "local", "engine": "nfq", "configured_rtt_ms": 0.0},
        "locust": {"users": 200}, "totals": {"failures": 0},
        "transports": [{"mode": "https/keep-alive", "client": "geventhttpclient 2.6.1",
                        "requests": 50, "failures": 0, "ops_per_s": 10.0, "p50_ms": 4140.0}],
    }  # fmt: skip
    (path / "results.json").write_text(
        json.dumps({"run_id": "load-run", "lab_commit": "x", "load": load})
    )
    (path / "load" / "locust_stats_history.csv").write_text(
        "Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,95%\n"
        "1795402328,0,,Aggregated,0.0,0.0,N/A,N/A\n1795402329,50,,Aggregated,5.0,0.0,4100,6200\n"
        "1795402330,100,,Aggregated,10.0,0.0,4140,6300\n"
    )
    files = build_report(tmp_path, [find_run(tmp_path, "load-run")])
    summary = check_report(files.directory)
    assert drawn(summary) == {"load"}
    html = files.html.read_text()
    assert "geventhttpclient 2.6.1" in html
    assert "Locust's percentiles have no interval" in html


def test_context_names_the_ssh_and_tls_software_on_both_sides(tmp_path: Path) -> None:
    """A handshake's cost depends on the device's sshd, nginx and OpenSSL and on the runner's
    OpenSSL and OpenSSH client: the report's context block names each, as the manifest has them."""
    path = run_doc(tmp_path, "versions", "regional", 30.0, floor_modes())
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["device"] = {
        "version": "0.1.0", "sshd": "OpenSSH_10.0p2", "nginx": "nginx/1.26.3",
        "openssl": "OpenSSL 3.5.4", "raw": {"openssh_version": "OpenSSH_10.0p2"},
    }  # fmt: skip
    manifest["runner"] |= {
        "python": "3.13.5", "openssl": "OpenSSL 3.5.4 30 Sep 2025",
        "openssh": "OpenSSH_10.0p2 Debian-7, OpenSSL 3.5.4 30 Sep 2025",
    }  # fmt: skip
    (path / "manifest.json").write_text(json.dumps(manifest))
    html = build_report(tmp_path, [find_run(tmp_path, "versions")]).html.read_text()
    device = re.search(r"<th>device</th><td>(.*?)</td>", html)
    host = re.search(r"<th>host</th><td>(.*?)</td>", html)
    assert device
    assert host
    for shown in ("sshd OpenSSH_10.0p2", "nginx nginx/1.26.3", "openssl OpenSSL 3.5.4"):
        assert shown in device.group(1), shown
    assert "raw" not in device.group(1)
    for shown in (
        "python 3.13.5",
        "openssl OpenSSL 3.5.4 30 Sep 2025",
        "openssh OpenSSH_10.0p2 Debian-7, OpenSSL 3.5.4 30 Sep 2025",
    ):
        assert shown in host.group(1), shown


def test_direct_jump_host_and_head_end_are_charted_per_wan_profile(tmp_path: Path) -> None:
    """A run of direct and relayed modes is two jobs of one sweep: the remote-sites chart
    puts each WAN profile's paths side by side, the LAN behind it named."""
    relay = {
        "jump_host": "jumphost", "jump_port": 22, "headend": "headend",
        "headend_https_port": 443, "headend_h3_port": 443,
        "lan_profile": {"name": "campus", "rtt_ms": 2.0, "jitter_ms": 0.0, "loss_pct": 0.0,
                        "rate_mbit": 0.0, "engine": "nfq", "engine_reason": "test"},
    }  # fmt: skip
    for profile, rtt in (("regional", 30.0), ("continental", 70.0)):
        scale = rtt / 30
        run_doc(tmp_path, f"s-{profile}", profile, rtt, floor_modes(scale), sweep="s")
        relayed = [
            mode_doc("jump/pty-fresh", "asyncssh", [scale * v for v in (190, 195, 192, 199)]),
            mode_doc("proxy/keep-alive", "httpx", [scale * v for v in (40, 41, 42, 40.5)]),
            mode_doc("proxy-h3/keep-alive", "quic-go", [scale * v for v in (35, 36, 37, 35.5)]),
        ]
        path = run_doc(tmp_path, f"s-{profile}-relayed", profile, rtt, relayed, sweep="s")
        document = json.loads((path / "results.json").read_text())
        (path / "results.json").write_text(json.dumps({**document, "relay": relay}))
    main = find_run(tmp_path, "s-regional-relayed")
    [figure] = [
        builder([(run.run_id, run) for run in sweep_runs(tmp_path, main)])
        for builder in charts.RUN_CHARTS
        if builder is charts.remote_sites
    ]
    paths = {(row["wan"], row["mode"]): row["path"] for row in figure.rows}
    regional = "WAN regional (30 ms) · LAN campus (2 ms)"
    assert paths[(regional, "ssh/pty-fresh")] == "direct"
    assert paths[(regional, "jump/pty-fresh")] == "jump host"
    assert paths[(regional, "proxy/keep-alive")] == "head-end (HTTPS)"
    assert paths[(regional, "proxy-h3/keep-alive")] == "head-end (HTTP/3)"
    assert {wan for wan, _ in paths} == {regional, "WAN continental (70 ms) · LAN campus (2 ms)"}
    files = build_report(tmp_path, sweep_runs(tmp_path, main))
    assert "remote-sites" in drawn(check_report(files.directory))
    alone = build_report(tmp_path, [find_run(tmp_path, "s-regional")], output=tmp_path / "alone")
    notes = {
        chart["name"]: chart["note"]
        for chart in json.loads((alone.directory / "report.json").read_text())["charts"]
    }
    assert notes["remote-sites"].startswith("no relayed mode")
