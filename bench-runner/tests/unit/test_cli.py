from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_runner.cli import app, plan_overrides, run
from bench_runner.plan import Plan, load_plan, override
from bench_runner.settings import Settings

runner = CliRunner()


@pytest.fixture(autouse=True)
def lab_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEVICE_USERNAME", "labops")
    monkeypatch.setenv("DEVICE_PASSWORD", "Secret123x")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))


def test_modes_lists_every_mode() -> None:
    result = runner.invoke(app, ["modes"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    for name in ("ssh/fresh-conn", "ssh/pty-fresh", "https/batch-post"):
        assert name in result.output


def test_netem_none_requires_the_local_profile() -> None:
    result = runner.invoke(app, ["run", "--netem", "none", "--profile", "regional", "--no-sinks"])
    assert result.exit_code == 2
    assert "--profile local" in result.output


def test_unknown_mode_is_a_usage_error() -> None:
    result = runner.invoke(app, ["run", "--netem", "none", "--modes", "ssh/nope", "--no-sinks"])
    assert result.exit_code == 2
    assert "unknown mode" in result.output


def test_credentials_are_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEVICE_PASSWORD")
    result = runner.invoke(app, ["run", "--netem", "none", "--no-sinks"])
    assert result.exit_code == 2
    assert "DEVICE_PASSWORD" in result.output


def test_unreachable_device_fails_the_mode_and_still_writes_results(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "--netem",
            "none",
            "--no-sinks",
            "--modes",
            "https/keep-alive",
            "--iterations",
            "1",
            "--warmup",
            "0",
            "--run-id",
            "unreachable",
        ],
        env={
            "DEVICE_HOST": "127.0.0.1",
            "DEVICE_HTTPS_PORT": "9",
            "DEVICE_METRICS_URL": "http://127.0.0.1:9",
        },
    )
    assert result.exit_code == 1
    document = (tmp_path / "unreachable" / "results.json").read_text()
    assert '"engine": "none"' in document
    assert "rtt probe: ConnectionRefusedError" in document


def test_unknown_plan_and_bad_override_are_usage_errors() -> None:
    result = runner.invoke(app, ["run", "--netem", "none", "--no-sinks", "--plan", "nope.yaml"])
    assert result.exit_code == 2
    assert "built-in plans" in result.output
    result = runner.invoke(app, ["run", "--netem", "none", "--no-sinks", "--clients", "telnet"])
    assert result.exit_code == 2
    assert "unknown client" in result.output
    result = runner.invoke(app, ["run", "--netem", "none", "--no-sinks", "--fleet-hosts", "1,200"])
    assert result.exit_code == 2
    assert "fleet_hosts" in result.output


def test_fleet_options_set_the_plans_counts() -> None:
    overrides = plan_overrides(run, {"fleet_hosts": "1,4", "fleet_repeats": "3", "modes": None})
    merged = override(load_plan("reproduce-ssh-libraries"), overrides)
    assert (merged.fleet_host_counts(), merged.fleet_repeat_counts()) == ([1, 4], [3])


def test_every_plan_option_overrides_its_plan_field() -> None:
    given = {
        "profile": "local, regional",
        "commands": "show version;show clock",
        "timeout": 9.0,
        "netconf_framing": "1.0",
        "iterations": 7,
        "no_sinks": True,  # not a plan field
    }
    assert plan_overrides(run, given) == {
        "profiles": ["local", "regional"],
        "commands": ["show version", "show clock"],
        "timeout_s": 9.0,
        "netconf_framing": ["1.0"],
        "iterations": 7,
    }
    merged = override(Plan(), plan_overrides(run, given))
    assert (merged.iterations, merged.timeout_s) == (7, 9.0)


def test_help_texts_name_the_plan_defaults() -> None:
    defaults = Plan()
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    for named in (
        "default: the plan's, else until the median is precise (--precision)",
        f"this many percent of it; default: the plan's, else {defaults.precision_pct}",
        f"discarded iterations per mode; default: the plan's, else {defaults.warmup}",
        f'default: the plan\'s, else "{";".join(defaults.commands)}"',
        f"default: the plan's, else {defaults.baseline}",
        f"seconds allowed per iteration; default: the plan's, else {defaults.timeout_s:g}",
        f"default: the plan's, else {defaults.netconf_reply_bytes}",
    ):
        assert named in result.output


def test_a_number_for_commands_is_a_usage_error() -> None:
    """clibench's ``--commands 5``: refused before anything is measured, saying what the
    option takes."""
    result = runner.invoke(
        app, ["run", "--netem", "none", "--no-sinks", "--commands", "5"], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 2
    assert "--commands takes them separated by semicolons" in result.output
    assert "the number of commands per iteration is how many are listed" in result.output


def test_results_are_named_where_the_host_has_them(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["run", "--netem", "none", "--no-sinks", "--modes", "https/keep-alive", "--run-id", "r1"],
        env={
            "DEVICE_HOST": "127.0.0.1",
            "DEVICE_HTTPS_PORT": "9",
            "DEVICE_METRICS_URL": "http://127.0.0.1:9",
            "RESULTS_HOST_DIR": "/home/me/transport-lab/results",
            "COLUMNS": "250",
        },
    )
    assert "results: /home/me/transport-lab/results/r1/ (results.json" in result.output
    assert (tmp_path / "r1" / "results.json").exists()


def test_without_a_host_directory_the_container_path_is_shown(tmp_path: Path) -> None:
    settings = Settings(results_host_dir="")
    assert settings.results_host_dir is None
    assert settings.shown_path(tmp_path / "r1") == tmp_path / "r1"
    mounted = Settings(results_host_dir="/srv/results")
    assert mounted.shown_path(tmp_path / "spool" / "x.lp") == Path("/srv/results/spool/x.lp")
    assert mounted.shown_path(Path("/elsewhere")) == Path("/elsewhere")
