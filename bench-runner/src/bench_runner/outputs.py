"""Files written next to results.json: CSV tables and the run manifest."""

import csv
import io
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from bench_runner import hop_split, loss_model, phases
from bench_runner.results import ModeResult, ModeRun, RunResult
from bench_runner.wire import handshake_model, timeline
from bench_runner.wire import model as wire_model

PARAMETER_COLUMNS = ("framing", "reply_bytes", "bulk_size", "hosts", "repeats", "encoding")
"""Mode parameters (``modes[].parameters``) as the last CSV columns, empty where unset."""
# Columns are only appended, so readers of older files keep working.
ITERATION_COLUMNS = (
    "run_id",
    "profile",
    "engine",
    "mode",
    "transport",
    "client",
    "client_version",
    "iteration",
    "started_at",
    "wall_ms",
    "ok",
    "error",
    "round_trips",
    *PARAMETER_COLUMNS,
    *wire_model.ITERATION_COLUMNS,
    *phases.ITERATION_COLUMNS,
    *timeline.ITERATION_COLUMNS,
    "excluded",
    *hop_split.ITERATION_COLUMNS,
)
MODE_COLUMNS = (
    "run_id",
    "profile",
    "engine",
    "mode",
    "transport",
    "client",
    "client_version",
    "ok",
    "published",
    "n",
    "errors",
    "warmup_discarded",
    "min_ms",
    "max_ms",
    "mean_ms",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "stddev_ms",
    "configured_rtt_ms",
    "verified_rtt_ms",
    "min_round_trips",
    "expected_round_trips",
    "connections_per_iteration",
    "commands_per_request",
    "speedup_vs_baseline",
    "counted_round_trips_p50",
    "runner_cpu_s",
    "runner_rss_peak_bytes",
    "device_cpu_s",
    "device_memory_peak_bytes",
    *PARAMETER_COLUMNS,
    "transfer_bytes",
    "throughput_mb_s",
    "updates_per_second",
    *wire_model.SUMMARY_COLUMNS,
    *phases.SUMMARY_COLUMNS,
    "series",
    "p50_vs_floor",
    "rtt_model_local_p50_ms",
    "rtt_model_round_trips",
    "rtt_model_p50_ms",
    *timeline.SUMMARY_COLUMNS,
    *loss_model.SUMMARY_COLUMNS,
    "excluded",
    *handshake_model.COLUMNS,
    "p50_ci_low_ms",
    "p50_ci_high_ms",
    "p95_ci_low_ms",
    "p95_ci_high_ms",
    "p50_ci_half_width_pct",
    "precision_target_pct",
    "stop_reason",
    "speedup_ci_low",
    "speedup_ci_high",
    *hop_split.SUMMARY_COLUMNS,
)


def _atomic_write(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _csv_text(columns: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _parameter_columns(mode: ModeResult) -> dict[str, Any]:
    """Mode parameters as CSV columns (empty for modes without them)."""
    tags = mode.parameter_tags()
    return {column: tags.get(column, "") for column in PARAMETER_COLUMNS}


def iteration_rows(run: RunResult, mode_runs: list[ModeRun]) -> list[dict[str, Any]]:
    rows = []
    for mode_run in mode_runs:
        mode = mode_run.result
        for record in mode_run.records:
            rows.append(
                {
                    "run_id": run.run_id,
                    "profile": run.profile.name,
                    "engine": run.profile.engine,
                    "mode": mode.mode,
                    "transport": mode.transport,
                    "client": mode.client,
                    "client_version": mode.client_version,
                    "iteration": record.iteration,
                    "started_at": record.started_at.isoformat(),
                    "wall_ms": record.wall_ms,
                    "ok": record.ok,
                    "error": record.error or "",
                    "round_trips": record.round_trips,
                    **_parameter_columns(mode),
                    **wire_model.iteration_fields(record.wire),
                    **phases.iteration_fields(record.phases),
                    **timeline.iteration_fields(record.time_split),
                    "excluded": record.excluded or "",
                    **hop_split.iteration_fields(record.hop_split),
                }
            )
    return rows


def _precision_columns(mode: ModeResult) -> dict[str, Any]:
    stats = mode.stats
    speedup = mode.speedup_vs_baseline_ci
    return {
        "p50_ci_low_ms": stats.p50_ci_low_ms,
        "p50_ci_high_ms": stats.p50_ci_high_ms,
        "p95_ci_low_ms": stats.p95_ci_low_ms,
        "p95_ci_high_ms": stats.p95_ci_high_ms,
        "p50_ci_half_width_pct": stats.p50_ci_half_width_pct,
        "precision_target_pct": mode.precision.target_half_width_pct if mode.precision else None,
        "stop_reason": mode.precision.stop_reason if mode.precision else None,
        "speedup_ci_low": speedup[0] if speedup else None,
        "speedup_ci_high": speedup[1] if speedup else None,
    }


def mode_rows(run: RunResult) -> list[dict[str, Any]]:
    rows = []
    for mode in run.modes:
        stats = mode.stats
        resources = mode.resources
        model = mode.rtt_model
        rows.append(
            {
                "run_id": run.run_id,
                "profile": run.profile.name,
                "engine": run.profile.engine,
                "mode": mode.mode,
                "transport": mode.transport,
                "client": mode.client,
                "client_version": mode.client_version,
                "ok": mode.ok,
                "published": mode.published,
                "n": stats.n,
                "errors": stats.errors,
                "warmup_discarded": stats.warmup_discarded,
                "min_ms": stats.min_ms,
                "max_ms": stats.max_ms,
                "mean_ms": stats.mean_ms,
                "p50_ms": stats.p50_ms,
                "p95_ms": stats.p95_ms,
                "p99_ms": stats.p99_ms,
                "stddev_ms": stats.stddev_ms,
                "configured_rtt_ms": mode.configured_rtt_ms,
                "verified_rtt_ms": mode.verified_rtt_ms,
                "min_round_trips": mode.min_round_trips,
                "expected_round_trips": mode.expected_round_trips,
                "connections_per_iteration": mode.connections_per_iteration,
                "commands_per_request": mode.commands_per_request,
                "speedup_vs_baseline": mode.speedup_vs_baseline,
                "counted_round_trips_p50": mode.round_trips.p50 if mode.round_trips else None,
                "runner_cpu_s": resources.runner_cpu_s if resources else None,
                "runner_rss_peak_bytes": resources.runner_rss_peak_bytes if resources else None,
                "device_cpu_s": resources.device_cpu_s if resources else None,
                "device_memory_peak_bytes": resources.device_memory_peak_bytes
                if resources
                else None,
                **_parameter_columns(mode),
                "transfer_bytes": mode.transfer_bytes,
                "throughput_mb_s": mode.throughput_mb_s,
                "updates_per_second": mode.stream.updates_per_second if mode.stream else None,
                **wire_model.summary_fields(mode.wire),
                **phases.summary_fields(mode.phases),
                "series": mode.series,
                "p50_vs_floor": mode.p50_vs_floor,
                **_precision_columns(mode),
                **hop_split.summary_fields(mode.hop_split),
                "rtt_model_local_p50_ms": model.local_p50_ms if model else None,
                "rtt_model_round_trips": model.round_trips if model else None,
                "rtt_model_p50_ms": model.predicted_p50_ms if model else None,
                **timeline.summary_fields(mode.time_split),
                **loss_model.summary_fields(mode.wire, mode.loss_model),
                "excluded": stats.excluded,
                **handshake_model.csv_fields(mode.handshakes),
            }
        )
    return rows


def manifest(
    run: RunResult, argv: list[str], libraries: dict[str, str], engine: str | None
) -> dict[str, Any]:
    """The run's provenance; ``libraries``: every client the runner can drive, with its
    version; ``engine``: the container engine's version, when known."""
    device = run.device
    return {
        "run_id": run.run_id,
        "sweep": run.sweep,
        "schema_version": run.schema_version,
        "command": argv,
        "plan": run.plan,
        "lab": {"commit": run.lab.commit, "images": run.lab.images, "engine": engine},
        "runner": {
            "version": run.runner.version,
            "python": run.runner.python,
            "openssl": run.runner.openssl,
            "openssh": run.runner.openssh,
            "kernel": platform.release(),
            "platform": sys.platform,
        },
        "device": {
            "version": device.get("device_version"),
            "platform": device.get("platform"),
            "sshd": device.get("openssh_version"),
            "nginx": device.get("nginx_version"),
            "http3": device.get("http3"),
            "gnmi": device.get("gnmi"),
            "openssl": device.get("openssl_version"),
            "kernel": device.get("kernel"),
            "raw": device,
        },
        "target": run.target.model_dump(),
        "netem": {
            "profile": run.profile.name,
            "engine": run.profile.engine,
            "engine_reason": run.profile.engine_reason,
            "applied_at": run.profile.applied_at,
            "readback": run.profile.readback,
        },
        "libraries": libraries,
    }


def write_outputs(
    run: RunResult,
    mode_runs: list[ModeRun],
    results_dir: Path,
    argv: list[str],
    libraries: dict[str, str],
    engine: str | None,
) -> list[Path]:
    """``iterations.csv``, ``modes.csv`` and ``manifest.json`` in ``<results_dir>/<run_id>/``."""
    run_dir = results_dir / run.run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (
        ("iterations.csv", _csv_text(ITERATION_COLUMNS, iteration_rows(run, mode_runs))),
        ("modes.csv", _csv_text(MODE_COLUMNS, mode_rows(run))),
        ("manifest.json", json.dumps(manifest(run, argv, libraries, engine), indent=2) + "\n"),
    ):
        _atomic_write(run_dir / name, text)
        written.append(run_dir / name)
    return written
