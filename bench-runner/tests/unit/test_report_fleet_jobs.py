"""A fleet sweep's report (html_report/fleet_jobs.py, build_fleet_report): its job time
beside the model and its client's CPU with the knee charted per profile, its knees and
steps tabled with their context, and `report-html <sweep id>` finding it in results/."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_runner.cli import app
from bench_runner.fleet_job.sweep import SweepStep
from bench_runner.fleet_job.sweep_results import write_fleet_sweep
from bench_runner.html_report import build_fleet_report, fleet_jobs
from bench_runner.html_report.runs import find_fleet_sweep
from fleet_samples import knee_sweep, step_result, sweep_of
from test_html_report import check_report, drawn


def _written(tmp_path: Path) -> Path:
    return write_fleet_sweep(knee_sweep(), tmp_path)


def test_the_job_time_is_charted_beside_the_model_per_workers_count(tmp_path: Path) -> None:
    document = json.loads(_written(tmp_path).read_text())
    figure = fleet_jobs.job_time(document)
    rows = {(row["devices"], row["workers"]): row for row in figure.rows}
    assert set(rows) == {(1, "1 workers"), (10, "1 workers"), (10, "10 workers")}
    ten = rows[(10, "10 workers")]
    assert ten["verdict"] == "slower"
    assert ten["predicted_low_s"] <= ten["predicted_wall_s"] <= ten["predicted_high_s"]
    assert (ten["bar_low_s"], ten["bar_high_s"]) == (
        ten["predicted_low_s"],
        ten["predicted_high_s"],
    )
    one = rows[(1, "1 workers")]  # one device: no interval, an error bar of no length
    assert one["bar_low_s"] == one["bar_high_s"] == one["predicted_wall_s"]
    assert one["interval"].startswith("no interval")


def test_the_client_s_cpu_is_charted_with_the_knee_marked(tmp_path: Path) -> None:
    document = json.loads(_written(tmp_path).read_text())
    rows = fleet_jobs.client_cpu(document).rows
    assert [(row["devices"], row["workers"]) for row in rows if row["knee"]] == [("10 devices", 10)]
    busy = next(row for row in rows if row["knee"])
    assert busy["client_utilisation"] == pytest.approx(3.3 / 3.5)


def test_a_sweep_whose_steps_all_failed_gets_notes_not_charts(tmp_path: Path) -> None:
    failed = sweep_of([step_result(SweepStep("regional", 1, 1), 1.0, 0.1, ok=False)])
    document = json.loads(failed.model_dump_json())
    notes = [figure.note for figure in fleet_jobs.figures(document)]
    assert all(notes), notes


def test_the_sweep_s_report_tables_its_knees_and_steps_and_draws_its_charts(
    tmp_path: Path,
) -> None:
    _written(tmp_path)
    sweep = find_fleet_sweep(tmp_path, "sw")
    assert sweep is not None
    files = build_fleet_report(sweep)
    assert files.directory == tmp_path / "sw" / "report"
    assert drawn(check_report(files.directory)) == {"fleet-job-time", "fleet-client-cpu"}
    html = files.html.read_text()
    assert 'data-profile="regional" data-devices="10"' in html
    assert "undetermined" in html  # one device: no interval, no knee called
    assert 'data-run="sw-regional-d10-w10"' in html
    assert "nornir 3.6.0" in html


def test_report_html_finds_a_fleet_sweep_by_its_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _written(tmp_path)
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    answer = CliRunner().invoke(app, ["report-html", "sw"])
    assert answer.exit_code == 0, answer.output
    assert (tmp_path / "sw" / "report" / "index.html").is_file()
    assert find_fleet_sweep(tmp_path, "nope") is None
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "fleet-sweep.json").write_text("{")
    answer = CliRunner().invoke(app, ["report-html", "cut"])
    assert answer.exit_code == 2
