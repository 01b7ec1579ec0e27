"""The runner's log (bench_runner.logs): library records and warnings on stderr, one line
each naming its logger, WARNING and above unless asked for more."""

import logging
import warnings
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from bench_runner import logs
from bench_runner.cli import app


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """configure() changes process-wide state: the root logger and warnings capture."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)


def test_a_library_record_names_its_logger(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    logging.getLogger("paramiko.transport").error("Socket exception: %s", "Bad file descriptor")
    err = capsys.readouterr().err
    assert err == "ERROR [paramiko.transport] Socket exception: Bad file descriptor\n"


def test_libraries_behind_a_null_handler_are_shown(capsys: pytest.CaptureFixture[str]) -> None:
    """netmiko, scrapli, parallel-ssh and urllib3 attach a NullHandler: without the runner's
    handler their warnings went nowhere."""
    library = logging.getLogger("netmiko")
    null = logging.NullHandler()
    library.addHandler(null)
    try:
        logs.configure()
        library.warning("Paramiko: socket closed")
    finally:
        library.removeHandler(null)
    assert capsys.readouterr().err == "WARNING [netmiko] Paramiko: socket closed\n"


def test_info_records_are_hidden_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    logging.getLogger("asyncssh").info("[conn=0] Connected to SSH server at device, port 22")
    logging.getLogger("httpx").info("HTTP Request: GET https://device/ 200 OK")
    assert capsys.readouterr().err == ""


def test_a_higher_verbosity_shows_info(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure(logs.LogLevel.INFO)
    logging.getLogger("asyncssh").info("[conn=0] Connected")
    logging.getLogger("asyncssh").debug("[conn=0] Sending version")
    assert capsys.readouterr().err == "INFO [asyncssh] [conn=0] Connected\n"


def test_warnings_go_through_the_log(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.warn("unclosed file", ResourceWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert err.startswith("WARNING [py.warnings] ")
    assert "ResourceWarning: unclosed file" in err


def test_configuring_twice_keeps_one_handler(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    logs.configure(logs.LogLevel.DEBUG)
    logging.getLogger("ncclient.transport.ssh").warning("once")
    assert capsys.readouterr().err == "WARNING [ncclient.transport.ssh] once\n"


def test_the_command_line_sets_the_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_RUNNER_LOG_LEVEL", "INFO")
    result = CliRunner().invoke(app, ["modes"])
    assert result.exit_code == 0, result.output
    assert logging.getLogger().level == logging.INFO


def test_an_unknown_level_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["--log-level", "loud", "modes"])
    assert result.exit_code == 2
    assert "'loud' is not one of 'debug', 'info', 'warning'" in result.output
