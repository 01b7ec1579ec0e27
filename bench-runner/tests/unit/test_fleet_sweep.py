"""Fleet sweeps (bench_runner/fleet_job: sweep.py, knee.py, sweep_results.py, sweep_run.py):
the steps a sweep runs and skips, the knee called only where a step is past the model's
interval with its client saturated, the summary built from the steps' own documents, each
step run through the fleet job's own step, and the knee's point named by the schema."""

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_runner.cli import EXIT_USAGE, app
from bench_runner.console import console, fleet_sweep_table
from bench_runner.fleet_job import sweep_run
from bench_runner.fleet_job.client_cores import available_cores, quota_cores
from bench_runner.fleet_job.job import FleetJobError
from bench_runner.fleet_job.knee import SATURATION, KneeStep, find_knee
from bench_runner.fleet_job.publish import fleet_job_point, fleet_knee_point
from bench_runner.fleet_job.results import FleetJobResult
from bench_runner.fleet_job.run import FleetJobRequest
from bench_runner.fleet_job.summary import client_utilisation
from bench_runner.fleet_job.sweep import SweepStep, plan_sweep, step_run_id
from bench_runner.fleet_job.sweep_results import FLEET_SWEEP_FILE, FleetSweepResult
from bench_runner.influx_schema import Measurement, field_names, tag_names
from bench_runner.lab_run import LabInUseError
from bench_runner.settings import Settings
from fleet_samples import JOB, knee_sweep, step_result, sweep_of


def test_a_step_with_more_workers_than_devices_is_skipped_not_clamped() -> None:
    plan = plan_sweep((10, 1), (20, 1, 10, 10), ("regional", "continental"))
    assert [(s.profile, s.devices, s.workers) for s in plan.steps] == [
        ("regional", 1, 1), ("regional", 10, 1), ("regional", 10, 10),
        ("continental", 1, 1), ("continental", 10, 1), ("continental", 10, 10),
    ]  # fmt: skip
    assert {(s.devices, s.workers) for s in plan.skipped} == {(1, 10), (1, 20), (10, 20)}
    assert step_run_id("sw", SweepStep("regional", 10, 1)) == "sw-regional-d10-w1"


@pytest.mark.parametrize(
    ("devices", "workers", "profiles", "message"),
    [
        ((), (1,), ("regional",), "at least one devices"),
        ((1,), (0,), ("regional",), "at least 1"),
        ((1,), (1,), (), "at least one profile"),
        ((1, 2), (5, 10), ("regional",), "nothing to run"),
    ],
)
def test_a_sweep_that_cannot_run_is_refused_with_its_reason(
    devices: tuple[int, ...], workers: tuple[int, ...], profiles: tuple[str, ...], message: str
) -> None:
    with pytest.raises(FleetJobError, match=message):
        plan_sweep(devices, workers, profiles)


def _step(
    workers: int,
    wall_s: float | None,
    high_s: float | None,
    busy: float | None,
    ok: bool = True,
) -> KneeStep:
    return KneeStep(workers, f"w{workers}", ok, wall_s, high_s, busy)


def test_the_knee_is_the_fewest_workers_past_the_model_with_the_client_saturated() -> None:
    steps = [
        _step(20, 6.0, 3.2, 0.95),  # past the model, saturated: the knee
        _step(1, 60.0, 61.0, 0.10),  # within the model
        _step(10, 6.2, 6.1, 0.50),  # past it with CPU to spare: not the knee
        _step(50, 6.0, 1.4, 0.97),  # also both, but more workers
    ]
    knee = find_knee("nornir/netmiko/show", "regional", 100, steps)
    assert (knee.status, knee.workers, knee.run_id, knee.steps) == ("knee", 20, "w20", 4)
    assert knee.wall_s == 6.0
    assert knee.predicted_high_s == 3.2
    assert "95%" in knee.reason


def test_a_wall_time_inside_the_model_s_interval_is_never_a_knee() -> None:
    """Within noise of the model: however busy the client, nothing is called."""
    steps = [_step(1, 10.0, 10.5, 0.99), _step(10, 1.05, 1.06, 1.0)]
    knee = find_knee("s", "regional", 10, steps)
    assert knee.status == "not reached"
    assert knee.workers is None
    assert knee.reason == "every step within or under the model"


def test_past_the_model_with_cpu_to_spare_is_no_knee_and_says_so() -> None:
    knee = find_knee("s", "regional", 10, [_step(1, 10.0, 9.0, SATURATION - 0.01)])
    assert knee.status == "not reached"
    assert "workers=1" in knee.reason
    assert "something else held it" in knee.reason


@pytest.mark.parametrize(
    ("first", "why"),
    [
        (_step(1, 3.0, None, 0.5), "no per-device interval"),
        (_step(1, None, None, None, ok=False), "the step failed"),
        (_step(1, 3.0, 3.1, None), "no client usage"),
    ],
)
def test_a_step_that_cannot_be_judged_before_any_knee_leaves_it_undetermined(
    first: KneeStep, why: str
) -> None:
    knee = find_knee("s", "regional", 3, [first, _step(3, 3.0, 1.1, 0.99)])
    assert knee.status == "undetermined"
    assert knee.workers is None
    assert why in knee.reason


def test_a_step_after_the_knee_does_not_unmake_it() -> None:
    knee = find_knee("s", "regional", 10, [_step(1, 5.0, 4.0, 0.9), _step(10, 1.0, None, 0.9)])
    assert (knee.status, knee.workers) == ("knee", 1)


def test_client_utilisation_is_per_core_the_tool_can_use() -> None:
    # Nornir's workers share one interpreter: one core of two.
    assert client_utilisation("nornir", 3.0, 4.0, 2.0) == pytest.approx(0.75)
    assert client_utilisation("ansible", 3.0, 4.0, 2.0) == pytest.approx(0.375)
    assert client_utilisation("ansible", 3.0, 0.0, 2.0) is None


def test_the_client_s_cores_are_its_cpu_set_bounded_by_its_quota(tmp_path: Path) -> None:
    assert quota_cores("150000 100000") == pytest.approx(1.5)
    assert quota_cores("max 100000") is None
    assert quota_cores("nonsense") is None
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("50000 100000\n")
    assert available_cores(cpu_max) == pytest.approx(0.5)
    assert available_cores(tmp_path / "absent") >= 1


def test_the_summary_has_a_row_per_step_and_a_knee_per_profile_and_devices() -> None:
    sweep = knee_sweep()
    assert sweep.ok
    assert [(s.devices, s.workers) for s in sweep.steps] == [(1, 1), (10, 1), (10, 10)]
    assert sweep.skipped == [
        {"profile": "regional", "devices": 1, "workers": 10},
        {"profile": "regional", "devices": 1, "workers": 20},
        {"profile": "regional", "devices": 10, "workers": 20},
    ]
    assert (sweep.client_cores, sweep.usable_cores) == (2.0, 1.0)
    row = sweep.steps[2]
    assert row.tool_version == "3.6.0"
    assert row.verified_rtt_ms == pytest.approx(30.4)
    assert row.model_verdict == "slower"
    assert row.client_utilisation == pytest.approx(3.3 / 3.5)
    [one, ten] = sweep.knees
    assert (one.devices, one.status) == (1, "undetermined")  # one device: no interval
    assert (ten.devices, ten.status, ten.workers) == (10, "knee", 10)
    table = fleet_sweep_table(sweep)
    with console.capture() as captured:
        console.print(table)
    assert "knee at regional, 10 devices: knee" in captured.get()


def test_a_failed_step_fails_the_sweep_and_is_never_a_knee() -> None:
    steps = plan_sweep((1, 10), (1, 10, 20), ("regional",)).steps
    sweep = sweep_of([step_result(steps[1], 20.1, 2.0), step_result(steps[2], 3.5, 3.3, ok=False)])
    assert not sweep.ok
    assert sweep.steps[1].wall_s == 3.5
    assert sweep.steps[1].predicted_wall_s is None
    [knee] = sweep.knees
    assert knee.status == "undetermined"
    assert "the step failed" in knee.reason


def test_the_points_name_only_the_schema_s_tags_and_fields() -> None:
    step = SweepStep("regional", 10, 10)
    result = step_result(step, 3.5, 3.3)
    point = fleet_job_point(result)
    assert point.tags["sweep"] == "sw"
    assert point.tags["run_id"] == "sw-regional-d10-w10"
    assert set(point.fields) <= field_names(Measurement.FLEET_JOB, (), (), ())
    assert str(point.fields["title"]).startswith("sw-regional-d10-w10: ")
    sweep = sweep_of([step_result(SweepStep("regional", 10, 1), 20.1, 2.0), result])
    knee = fleet_knee_point(sweep, sweep.knees[0])
    assert knee.measurement == Measurement.FLEET_KNEE
    assert set(knee.tags) <= tag_names()
    assert set(knee.fields) <= field_names(Measurement.FLEET_KNEE, (), (), ())
    assert (knee.tags["run_id"], knee.tags["devices"], knee.fields["status"]) == (
        "sw",
        "10",
        "knee",
    )


def test_each_step_runs_as_a_fleet_job_under_the_sweep_and_the_summary_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[FleetJobRequest] = []

    def run_step(_: Settings, request: FleetJobRequest, __: object) -> FleetJobResult:
        asked.append(request)
        if len(asked) == 3:
            raise LabInUseError("the lab is another run's")
        step = SweepStep(request.profile, request.job.devices, request.job.workers)
        return step_result(step, 2.0 * request.job.devices / request.job.workers, 0.5)

    monkeypatch.setattr(sweep_run, "run_fleet_job", run_step)
    monkeypatch.setattr(sweep_run, "fleet_hosts", lambda _, devices: [None] * devices)
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    request = sweep_run.FleetSweepRequest(
        job=JOB, devices=(1, 3), workers=(1, 3), profiles=("regional",), sweep_id="sw",
        timeout_s=10.0, publish=False,
    )  # fmt: skip
    presenter = _Notes()
    with pytest.raises(LabInUseError):
        sweep_run.run_fleet_sweep(Settings(), request, presenter)  # type: ignore[arg-type]
    assert [(r.run_id, r.sweep, r.job.devices, r.job.workers) for r in asked] == [
        ("sw-regional-d1-w1", "sw", 1, 1),
        ("sw-regional-d3-w1", "sw", 3, 1),
        ("sw-regional-d3-w3", "sw", 3, 3),
    ]
    assert replace(asked[0].job, devices=JOB.devices, workers=JOB.workers) == JOB
    written = FleetSweepResult.model_validate_json((tmp_path / "sw" / FLEET_SWEEP_FILE).read_text())
    assert [step.run_id for step in written.steps] == ["sw-regional-d1-w1", "sw-regional-d3-w1"]
    assert written.error is not None
    assert written.error.startswith("stopped at step 3: the lab is another run's")
    assert not written.ok
    assert any("skipped at regional: 3 workers for 1 devices" in note for note in presenter.notes)


class _Notes:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)


def test_the_command_refuses_a_sweep_before_it_touches_the_lab(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NETEM_URL", "http://127.0.0.1:9")  # nothing answers: never asked
    runner = CliRunner()
    base = ["fleet-sweep", "--tool", "nornir", "--connection", "netmiko"]
    answer = runner.invoke(app, [*base, "--devices", "1,ten"])
    assert answer.exit_code == EXIT_USAGE
    assert "--devices takes whole numbers" in answer.output
    answer = runner.invoke(app, [*base, "--devices", "2", "--workers", "5"])
    assert answer.exit_code == EXIT_USAGE
    assert "nothing to run" in answer.output
