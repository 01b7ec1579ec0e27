import asyncio
from collections.abc import Sequence

from bench_runner.modes import IterationError
from bench_runner.runner import run_iteration

COMMANDS = ("show version", "show clock")


class ScriptedSession:
    def __init__(self, outputs: list[str] | None = None, error: Exception | None = None,
                 delay_s: float = 0.0) -> None:
        self._outputs = outputs or []
        self._error = error
        self._delay_s = delay_s

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        await asyncio.sleep(self._delay_s)
        if self._error is not None:
            raise self._error
        return self._outputs


def run(session: ScriptedSession, timeout_s: float = 5.0) -> tuple[float, str | None]:
    return asyncio.run(run_iteration(session, COMMANDS, timeout_s))


def test_successful_iteration_is_timed() -> None:
    wall_ms, error = run(ScriptedSession(["version text", "clock text"], delay_s=0.02))
    assert error is None
    assert 15.0 <= wall_ms < 1000.0


def test_invalid_output_names_the_command() -> None:
    _, error = run(ScriptedSession(["version text", "% Invalid input detected"]))
    assert error == "show clock: % Invalid input detected"


def test_combined_output_is_validated_as_one() -> None:
    _, error = run(ScriptedSession([""]))
    assert error == "show version/show clock: empty output"


def test_transport_errors_are_recorded_not_raised() -> None:
    _, error = run(ScriptedSession(error=ConnectionResetError("peer reset")))
    assert error == "ConnectionResetError: peer reset"
    _, error = run(ScriptedSession(error=IterationError("show clock: HTTP 401: ")))
    assert error == "show clock: HTTP 401: "


def test_timeout_is_a_failure() -> None:
    wall_ms, error = run(ScriptedSession(["x", "y"], delay_s=1.0), timeout_s=0.05)
    assert error == "timed out after 0.05 s"
    assert wall_ms < 1000.0
