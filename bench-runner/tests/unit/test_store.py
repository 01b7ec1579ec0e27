"""The results store: which directories are runs, their order, finding one by id or prefix,
and reading it typed, older schema versions and load runs included."""

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench_runner import store
from bench_runner.cli import app
from bench_runner.results import ModeRun, RunResult, write_results
from bench_runner.store import RunNotFoundError, UnreadableRunError

Sample = tuple[RunResult, list[ModeRun]]


def write_run(results: Path, sample: Sample, run_id: str, hours: float = 0.0) -> RunResult:
    """The sample run as ``run_id``, started ``hours`` after the sample."""
    shift = timedelta(hours=hours)
    run = sample[0].model_copy(
        update={
            "run_id": run_id,
            "started_at": sample[0].started_at + shift,
            "finished_at": sample[0].finished_at + shift,
        }
    )
    write_results(run, results)
    return run


def write_document(results: Path, name: str, document: object) -> Path:
    directory = results / name
    directory.mkdir()
    (directory / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return directory


def load_document(run_id: str, started: str = "2026-11-23T02:00:00+00:00") -> dict[str, Any]:
    """A load run's own results.json (transport-load): no modes, its times in ``load``."""
    return {
        "run_id": run_id,
        "lab_commit": "abc",
        "load": {
            "started_at": started,
            "finished_at": "2026-11-23T02:10:00+00:00",
            "profile": {"name": "regional", "engine": "nfq"},
        },
    }


def ids(runs: list[store.StoredRun]) -> list[str]:
    return [run.run_id for run in runs]


def test_runs_are_the_run_directories_oldest_first(tmp_path: Path, sample_run: Sample) -> None:
    write_run(tmp_path, sample_run, "b-late", hours=2)
    write_run(tmp_path, sample_run, "z-early", hours=-1)
    write_run(tmp_path, sample_run, "a-late", hours=2)  # same start: by run id
    write_document(tmp_path, "load-x", load_document("load-x", "2026-11-22T12:30:00+00:00"))
    assert ids(store.runs(tmp_path)) == ["z-early", "load-x", "a-late", "b-late"]
    load = store.runs(tmp_path)[1]
    assert (load.kind, load.profile, load.plan, load.target_host) == (
        "load",
        "regional",
        None,
        None,
    )
    runner = store.runs(tmp_path)[0]
    assert (runner.kind, runner.profile, runner.target_host) == ("runner", "regional", "device")
    assert runner.finished_at - runner.started_at == timedelta(minutes=1)


def test_what_is_no_run_is_never_listed(tmp_path: Path, sample_run: Sample) -> None:
    kept = write_run(tmp_path, sample_run, "kept")
    (tmp_path / "spool").mkdir()
    (tmp_path / "fleet.yaml").write_text("targets: []\n")
    (tmp_path / "notes").mkdir()  # no results.json
    write_document(tmp_path, "list", [1, 2])  # not an object
    write_document(tmp_path, "other-tool", {"load": {"users": 10}})  # neither layout
    naive = {**json.loads(kept.model_dump_json()), "started_at": "2026-11-22T11:00:00"}
    write_document(tmp_path, "no-zone", {**naive, "run_id": "no-zone"})  # a time without zone
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text('{"run_id": "bro')  # cut short
    copy = tmp_path / "kept-copy"  # a copy: its document names another run
    copy.mkdir()
    (copy / "results.json").write_text((tmp_path / "kept" / "results.json").read_text())
    (tmp_path / "kept-link").symlink_to(tmp_path / "kept")
    assert ids(store.runs(tmp_path)) == ["kept"]
    assert store.runs(tmp_path / "missing") == []
    with pytest.raises(UnreadableRunError, match="not its directory's name"):
        store.read_run(copy)
    with pytest.raises(UnreadableRunError, match="started_at is not a time with its zone"):
        store.read_run(tmp_path / "no-zone")


def test_find_run_by_id_or_unique_prefix(tmp_path: Path, sample_run: Sample) -> None:
    write_run(tmp_path, sample_run, "sweep1-local")
    write_run(tmp_path, sample_run, "sweep1-regional", hours=1)
    write_run(tmp_path, sample_run, "a")
    write_run(tmp_path, sample_run, "ab", hours=1)
    assert store.find_run(tmp_path, "sweep1-reg").run_id == "sweep1-regional"
    assert store.find_run(tmp_path, "a").run_id == "a"  # an id wins over the ids it starts
    assert store.find_run(tmp_path, "ab").run_id == "ab"
    with pytest.raises(RunNotFoundError) as ambiguous:
        store.find_run(tmp_path, "sweep1")
    assert str(ambiguous.value) == (
        f"'sweep1' starts 2 runs under {tmp_path}, name one: sweep1-local, sweep1-regional"
    )
    with pytest.raises(RunNotFoundError) as missing:
        store.find_run(tmp_path, "nope")
    assert str(missing.value) == (
        f"no run 'nope' under {tmp_path}, and no run id starts with it (the latest: "
        "a, sweep1-local, ab, sweep1-regional)"
    )
    with pytest.raises(RunNotFoundError, match="and no run id starts with it"):
        store.find_run(tmp_path, "../a")  # a path is no run id
    with pytest.raises(RunNotFoundError, match=r"\(it holds no run\)"):
        store.find_run(tmp_path / "missing", "a")


def test_a_named_run_that_cannot_be_read_is_an_error(tmp_path: Path, sample_run: Sample) -> None:
    write_run(tmp_path, sample_run, "broken-but-longer")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "results.json").write_text("{")
    with pytest.raises(RunNotFoundError, match=r"run 'broken' cannot be read: .*results\.json"):
        store.find_run(tmp_path, "broken")


def test_matching_selects_a_sweeps_runs_by_prefix(tmp_path: Path, sample_run: Sample) -> None:
    write_run(tmp_path, sample_run, "matrix-1-regional", hours=1)
    write_run(tmp_path, sample_run, "matrix-1-local")
    write_run(tmp_path, sample_run, "matrix-2-local", hours=2)
    write_document(tmp_path, "matrix-1-load", load_document("matrix-1-load"))
    assert ids(store.matching(tmp_path, ["matrix-1"])) == [
        "matrix-1-local",
        "matrix-1-regional",
        "matrix-1-load",
    ]
    assert ids(store.matching(tmp_path, ["matrix-2", "matrix-1-l"])) == [
        "matrix-1-local",
        "matrix-2-local",
        "matrix-1-load",
    ]
    assert len(store.matching(tmp_path, [""])) == 4
    assert store.matching(tmp_path, ["nothing"]) == []


def test_older_schema_versions_read_typed(tmp_path: Path, sample_run: Sample) -> None:
    """Version 1: no sweep, plan, verdicts, time split or excluded iterations; every field
    added since has a default, so results.py's models read it."""
    document = json.loads(sample_run[0].model_dump_json())
    document.update(schema_version=1, run_id="v1")
    for name in ("sweep", "plan", "not_applicable", "baseline"):
        del document[name]
    for mode in document["modes"]:
        for name in (
            "verdict",
            "time_split",
            "rtt_model",
            "p50_vs_floor",
            "series",
            "rtt_check",
            "handshakes",
        ):
            del mode[name]
        del mode["stats"]["excluded"]
    write_document(tmp_path, "v1", document)
    run = store.find_run(tmp_path, "v1").result()
    assert (run.schema_version, run.sweep, run.plan) == (1, None, None)
    assert [mode.stats.excluded for mode in run.modes] == [0, 0]
    assert run.modes[0].series == sample_run[0].modes[0].series


def test_version_3_reads_without_handshakes_and_version_4_with_them(
    tmp_path: Path, sample_run: Sample
) -> None:
    document = json.loads(sample_run[0].model_dump_json())
    assert document["schema_version"] == 7
    write_document(tmp_path, "v5", {**document, "run_id": "v5"})
    for mode in document["modes"]:
        for field in ("precision", "speedup_vs_baseline_ci", "p50_vs_floor_ci"):
            del mode[field]
        mode["stats"] = {k: v for k, v in mode["stats"].items() if "_ci_" not in k}
    write_document(tmp_path, "v4", {**document, "run_id": "v4", "schema_version": 4})
    for mode in document["modes"]:
        del mode["handshakes"]
    write_document(tmp_path, "v3", {**document, "run_id": "v3", "schema_version": 3})
    older, newer = store.find_run(tmp_path, "v3").result(), store.find_run(tmp_path, "v4").result()
    newest = store.find_run(tmp_path, "v5").result()
    assert [mode.handshakes for mode in older.modes] == [None, None]
    assert [mode.precision for mode in newer.modes] == [None, None]
    assert [mode.stats.p50_ci_low_ms for mode in newer.modes] == [None, None]
    assert [mode.precision for mode in newest.modes] == [
        mode.precision for mode in sample_run[0].modes
    ]
    assert [mode.handshakes for mode in newer.modes] == [
        mode.handshakes for mode in sample_run[0].modes
    ]
    kex = newer.modes[1].handshakes
    assert kex is not None
    assert kex.parameters["ssh_kex"].values == {
        "curve25519-sha256": 1,
        "sntrup761x25519-sha512@openssh.com": 1,
    }


def test_result_is_the_runners_document_only(tmp_path: Path, sample_run: Sample) -> None:
    write_document(tmp_path, "load-x", load_document("load-x"))
    with pytest.raises(UnreadableRunError, match="a load run, without modes"):
        store.find_run(tmp_path, "load-x").result()
    document = json.loads(sample_run[0].model_dump_json())
    document.update(run_id="odd")
    del document["modes"][0]["stats"]
    write_document(tmp_path, "odd", document)
    odd = store.find_run(tmp_path, "odd")  # listed: its header is a run's
    with pytest.raises(UnreadableRunError, match=r"1 problems; modes\.0\.stats: Field required"):
        odd.result()


def test_commands_take_a_unique_prefix_and_name_the_candidates(
    tmp_path: Path, sample_run: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "250")
    write_run(tmp_path, sample_run, "night-1")
    write_run(tmp_path, sample_run, "night-2", hours=24)
    cli = CliRunner()
    judged = cli.invoke(app, ["verdicts", "--run", "night-2"])
    assert judged.exit_code == 0, judged.output
    ambiguous = cli.invoke(app, ["verdicts", "--run", "night"])
    assert ambiguous.exit_code == 2
    assert "'night' starts 2 runs" in ambiguous.output
    assert "night-1, night-2" in ambiguous.output
    missing = cli.invoke(app, ["compare", "night-1", "day"])
    assert missing.exit_code == 2
    assert "no run 'day'" in missing.output
