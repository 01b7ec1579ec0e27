import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench_runner.nightly import job
from bench_runner.nightly.config import NightlyConfig
from bench_runner.nightly.guard import LOCK_NAME, NightlyBusyError, nightly_lock
from bench_runner.nightly.schedule import ScheduleError, crontab
from bench_runner.nightly.status import status_registry
from bench_runner.prune import old_runs
from bench_runner.settings import Settings
from conftest import FakeHttpServer

NOW = datetime(2026, 11, 23, 2, 0, tzinfo=UTC)


def test_crontab_from_the_defaults() -> None:
    assert crontab(NightlyConfig()).splitlines()[1:] == [
        "CRON_TZ=UTC",
        "0 2 * * * bench-runner nightly",
    ]


def test_crontab_normalises_spaces_and_takes_a_zone_and_a_macro() -> None:
    text = crontab(NightlyConfig(nightly_schedule=" 30  3 * * 1-5 ", cron_tz="Europe/Paris"))
    assert "CRON_TZ=Europe/Paris\n30 3 * * 1-5 bench-runner nightly\n" in text
    daily = crontab(NightlyConfig(nightly_schedule="@daily"))
    assert daily.endswith("@daily bench-runner nightly\n")


@pytest.mark.parametrize(
    "schedule", ["", "0 2 * *", "0 2 * * * rm -rf /", "0 2 * * *\n* * * * * sh", "0 2 * * $(x)"]
)
def test_crontab_refuses_what_is_not_one_schedule(schedule: str) -> None:
    with pytest.raises(ScheduleError, match=r"NIGHTLY_SCHEDULE=.* is not a cron schedule"):
        crontab(NightlyConfig(nightly_schedule=schedule))


def test_crontab_refuses_an_unknown_zone_and_plan() -> None:
    with pytest.raises(ScheduleError, match="CRON_TZ='Mars/Base' is not a time zone"):
        crontab(NightlyConfig(cron_tz="Mars/Base"))
    with pytest.raises(ScheduleError, match="NIGHTLY_PLAN='nighty'"):
        crontab(NightlyConfig(nightly_plan="nighty"))


def test_the_lock_refuses_a_second_holder_naming_the_first(tmp_path: Path) -> None:
    with (
        nightly_lock(tmp_path, "nightly-first", NOW),
        pytest.raises(NightlyBusyError, match="run nightly-first, started 2026-11-23"),
        nightly_lock(tmp_path, "nightly-second", NOW),
    ):
        pass
    with nightly_lock(tmp_path, "nightly-third", NOW):  # released: free again
        assert "nightly-third" in (tmp_path / LOCK_NAME).read_text()


def test_the_lock_holds_across_processes(tmp_path: Path) -> None:
    """flock(1), as another container would take it on the shared results directory."""
    with nightly_lock(tmp_path, "nightly-first", NOW):
        other = subprocess.run(["flock", "-n", str(tmp_path / LOCK_NAME), "true"], check=False)
    assert other.returncode == 1


def test_status_registry_has_the_last_success_only_on_success() -> None:
    def names(code: int) -> set[str]:
        registry = status_registry("nightly-x", code, NOW)
        return {metric.name for metric in registry.collect()}

    assert "bench_nightly_last_success_timestamp_seconds" in names(0)
    assert "bench_nightly_last_success_timestamp_seconds" not in names(1)
    assert "bench_nightly_last_exit_code" in names(1)


def write_run(results: Path, name: str, finished: datetime) -> Path:
    """A run's directory as the store reads it: its id, its times, a profile and modes."""
    directory = results / name
    directory.mkdir(parents=True)
    document = {
        "run_id": name,
        "started_at": (finished - timedelta(minutes=5)).isoformat(),
        "finished_at": finished.isoformat(),
        "profile": {"name": "local"},
        "modes": [],
    }
    (directory / "results.json").write_text(json.dumps(document))
    return directory


def test_old_runs_only_whole_run_directories_past_the_limit(tmp_path: Path) -> None:
    old = write_run(tmp_path, "nightly-20260101T020000Z", NOW - timedelta(days=31))
    write_run(tmp_path, "nightly-20261101T020000Z", NOW - timedelta(days=29))
    write_run(tmp_path, "matrix-20260101T020000Z", NOW - timedelta(days=300))
    (tmp_path / "spool").mkdir()
    (tmp_path / "fleet.yaml").write_text("targets: []\n")
    no_results = tmp_path / "nightly-notes"
    no_results.mkdir()
    os.utime(no_results, (0, 0))
    broken = tmp_path / "nightly-broken"
    broken.mkdir()
    (broken / "results.json").write_text("{")
    (tmp_path / "nightly-link").symlink_to(old)
    copy = tmp_path / "nightly-copy"  # a copy of a run is not that run
    copy.mkdir()
    (copy / "results.json").write_text((old / "results.json").read_text())
    other_tool = tmp_path / "nightly-other"  # another tool's results.json is no run's
    other_tool.mkdir()
    (other_tool / "results.json").write_text(json.dumps({"finished_at": "2026-01-01T00:00Z"}))
    assert [run.path for run in old_runs(tmp_path, 30, NOW, "nightly-")] == [old]
    assert len(old_runs(tmp_path, 30, NOW)) == 2  # no prefix: every run
    assert old_runs(tmp_path, 0, NOW) == []  # 0 keeps everything


def test_nightly_job_runs_the_plan_pushes_status_and_prunes(
    tmp_path: Path, fake_http_server: FakeHttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def fake_run(command: list[str], check: bool) -> subprocess.CompletedProcess[bytes]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(job.subprocess, "run", fake_run)
    stale = write_run(tmp_path, "nightly-20250101T020000Z", NOW - timedelta(days=500))
    kept = write_run(tmp_path, "bench-20250101T020000Z", NOW - timedelta(days=500))
    fake_http_server.status = 200
    settings = Settings(results_dir=tmp_path, pushgateway_url=fake_http_server.url)
    code = job.nightly(settings, NightlyConfig(nightly_plan="smoke", results_keep_days=400))
    assert code == 0
    (command,) = commands
    assert command[:4] == ["bench-runner", "run", "--plan", "smoke"]
    assert command[4] == "--run-id"
    assert command[5].startswith("nightly-20")
    (push,) = fake_http_server.requests
    assert push.method == "POST"
    assert push.path == "/metrics/job/bench_nightly"
    assert b"bench_nightly_last_success_timestamp_seconds{run_id=" in push.body
    assert not stale.exists()
    assert kept.exists()


def test_nightly_job_refused_while_another_holds_the_lock(tmp_path: Path) -> None:
    settings = Settings(results_dir=tmp_path, pushgateway_url="http://127.0.0.1:9")
    with nightly_lock(tmp_path, "nightly-first", NOW), pytest.raises(NightlyBusyError):
        job.nightly(settings, NightlyConfig())


def test_a_status_not_pushed_fails_the_job_and_prunes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        job.subprocess, "run", lambda command, check: subprocess.CompletedProcess(command, 0)
    )
    stale = write_run(tmp_path, "nightly-20250101T020000Z", NOW - timedelta(days=500))
    settings = Settings(results_dir=tmp_path, pushgateway_url="http://127.0.0.1:9")
    assert job.nightly(settings, NightlyConfig()) == job.EXIT_STATUS_NOT_PUSHED
    assert stale.exists()


def test_nightly_run_id_is_utc() -> None:
    paris = NOW.astimezone(datetime.fromisoformat("2026-11-23T03:00:00+01:00").tzinfo)
    assert job.nightly_run_id(paris) == "nightly-20261123T020000Z"
