import asyncio
from typing import cast

import asyncssh
import pytest

from bench_runner.modes.clients.asyncssh_pty import PtyShell
from bench_runner.validation import IterationError


class FakeStdout:
    def __init__(self, chunks: list[str]) -> None:
        self._chunks = chunks

    async def read(self, _: int) -> str:
        return self._chunks.pop(0) if self._chunks else ""


class FakeStdin:
    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, text: str) -> None:
        self.written.append(text)


class FakeProcess:
    def __init__(self, chunks: list[str]) -> None:
        self.stdout = FakeStdout(chunks)
        self.stdin = FakeStdin()


def shell_for(chunks: list[str]) -> tuple[PtyShell, FakeProcess]:
    process = FakeProcess(chunks)
    return PtyShell(cast("asyncssh.SSHClientProcess[str]", process)), process


def test_command_output_without_echo_and_prompt() -> None:
    shell, process = shell_for(
        [
            "\r\nWelcome\r\nlab-r1#",
            "show clock\r\n*11:00:00.000 UTC",  # split mid-output: read until the prompt
            " Sun Nov 22 2026\r\nlab-r1#",
        ]
    )

    async def scenario() -> str:
        await shell.read_initial_prompt()
        return await shell.send_command("show clock")

    assert asyncio.run(scenario()) == "*11:00:00.000 UTC Sun Nov 22 2026"
    assert process.stdin.written == ["show clock\n"]


def test_only_the_learned_prompt_ends_output() -> None:
    shell, _ = shell_for(
        [
            "lab-r1#",
            "show running-config\r\nbanner motd x#\r\n",  # ends in '#' but is not the prompt
            "end\r\nlab-r1#",
        ]
    )

    async def scenario() -> str:
        await shell.read_initial_prompt()
        return await shell.send_command("show running-config")

    assert asyncio.run(scenario()) == "banner motd x#\nend"


def test_missing_echo_fails() -> None:
    shell, _ = shell_for(["lab-r1#", "something else\r\nlab-r1#"])

    async def scenario() -> str:
        await shell.read_initial_prompt()
        return await shell.send_command("show clock")

    with pytest.raises(IterationError, match="echo not found"):
        asyncio.run(scenario())


def test_closed_session_while_waiting_fails() -> None:
    shell, _ = shell_for(["Welcome\r\n"])
    with pytest.raises(IterationError, match="session closed while waiting for prompt"):
        asyncio.run(shell.read_initial_prompt())
