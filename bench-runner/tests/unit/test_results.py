import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench_runner.results import (
    ModeRun,
    RunResult,
    apply_baseline,
    apply_floor_ratio,
    new_run_id,
    write_results,
)

CONTRACT_TOP_KEYS = {
    "schema_version",
    "run_id",
    "started_at",
    "finished_at",
    "lab",
    "runner",
    "device",
    "target",
    "profile",
    "modes",
    "ok",
}
CONTRACT_PROFILE_KEYS = {
    "name",
    "rtt_ms",
    "jitter_ms",
    "loss_pct",
    "rate_mbit",
    "source",
    "engine",
    "engine_reason",
}
CONTRACT_MODE_KEYS = {
    "mode",
    "transport",
    "client",
    "client_version",
    "description",
    "iterations",
    "warmup",
    "commands",
    "configured_rtt_ms",
    "verified_rtt_ms",
    "rtt_probe",
    "min_round_trips",
    "expected_round_trips",
    "ok",
    "stats",
    "samples_ms",
    "error_messages",
}
CONTRACT_STATS_KEYS = {
    "n",
    "errors",
    "min_ms",
    "max_ms",
    "mean_ms",
    "p50_ms",
    "p95_ms",
    "stddev_ms",
}


def test_results_json_has_the_contract_shape(
    tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, _ = sample_run
    path = write_results(run, tmp_path)
    assert path == tmp_path / run.run_id / "results.json"
    document = json.loads(path.read_text())
    assert set(document) >= CONTRACT_TOP_KEYS  # fields are only ever added (SCHEMA.md)
    assert document["schema_version"] == 7
    assert set(document["lab"]) == {"commit", "images"}
    assert set(document["runner"]) == {"version", "python", "openssl", "openssh"}
    assert set(document["target"]) >= {"host", "ssh_port", "https_port"}
    assert set(document["profile"]) >= CONTRACT_PROFILE_KEYS
    for mode in document["modes"]:
        assert set(mode) >= CONTRACT_MODE_KEYS
        assert set(mode["stats"]) >= CONTRACT_STATS_KEYS
        assert set(mode["rtt_probe"]) >= {"method", "port", "samples"}
    assert document["modes"][1]["error_messages"] == ["show clock: % Invalid x"]
    assert document["ok"] is False
    assert document["started_at"] == "2026-11-22T11:00:00Z"
    assert not list(path.parent.glob("*.partial"))


def test_run_id_format() -> None:
    run_id = new_run_id(datetime(2026, 11, 22, 11, 0, 0, tzinfo=UTC))
    stamp, suffix = run_id.split("-")
    assert stamp == "20261122T110000Z"
    assert len(suffix) == 6
    int(suffix, 16)


def test_speedup_against_the_baseline(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, _ = sample_run
    # keep-alive p50 32.0, reuse-conn p50 61.0 (one sample)
    baseline = apply_baseline(run.modes, "ssh/reuse-conn")
    assert baseline is not None
    assert (baseline.mode, baseline.client, baseline.p50_ms) == ("ssh/reuse-conn", "asyncssh", 61.0)
    assert run.modes[0].speedup_vs_baseline == pytest.approx(61.0 / 32.0)
    assert run.modes[1].speedup_vs_baseline == pytest.approx(1.0)
    assert apply_baseline(run.modes, "ssh/reuse-conn@paramiko") is None
    assert apply_baseline(run.modes, "ssh/pty-fresh") is None


def test_p50_against_the_floor_client_of_the_same_mode_and_parameters(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    floor = run.modes[0]  # https/keep-alive, httpx, p50 32.0
    library = floor.model_copy(
        update={"client": "requests", "stats": floor.stats.model_copy(update={"p50_ms": 48.0})}
    )
    other_parameters = library.model_copy(update={"parameters": {"framing": "1.0"}})
    modes = [floor, library, other_parameters, run.modes[1]]
    apply_floor_ratio(modes, {"https/keep-alive": "httpx", "ssh/reuse-conn": "paramiko"})
    assert [mode.p50_vs_floor for mode in modes] == [1.0, 1.5, None, None]
