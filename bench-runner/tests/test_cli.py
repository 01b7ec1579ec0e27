from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_runner.cli import app

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
        ["run", "--netem", "none", "--no-sinks", "--modes", "https/keep-alive",
         "--iterations", "1", "--warmup", "0", "--run-id", "unreachable"],
        env={"DEVICE_HOST": "127.0.0.1", "DEVICE_HTTPS_PORT": "9",
             "DEVICE_METRICS_URL": "http://127.0.0.1:9"},
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
