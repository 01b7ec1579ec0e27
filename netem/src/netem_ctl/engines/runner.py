"""Runs engine commands, optionally inside another network namespace (tests, the VM check)."""

import logging
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

log = logging.getLogger("netem.commands")

Command = list[str]


class CommandError(RuntimeError):
    def __init__(self, argv: Sequence[str], returncode: int, stderr: str):
        self.argv = list(argv)
        self.returncode = returncode
        self.stderr = stderr.strip()
        super().__init__(f"`{shlex.join(argv)}` exited {returncode}: {self.stderr}")


@dataclass(frozen=True)
class CommandRunner:
    """`prefix` is prepended to every command, e.g. ("ip", "netns", "exec", "dev")."""

    prefix: tuple[str, ...] = ()

    def run(self, argv: Sequence[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        full = [*self.prefix, *argv]
        result = subprocess.run(full, capture_output=True, text=True, timeout=30)
        log.debug("%s -> %d", shlex.join(full), result.returncode)
        if check and result.returncode != 0:
            raise CommandError(full, result.returncode, result.stderr)
        return result

    def run_all(self, commands: Sequence[Command], check: bool = True) -> None:
        for argv in commands:
            self.run(argv, check=check)

    def output(self, argv: Sequence[str]) -> str:
        """stdout of a read-only command; empty when it fails (e.g. the object is absent)."""
        result = self.run(argv, check=False)
        return result.stdout if result.returncode == 0 else ""

    def spawn(self, argv: Sequence[str]) -> subprocess.Popen[bytes]:
        """Start a long-running process; its stderr is ours: its log reaches the container log.

        Its stdin is a pipe nobody writes to: the process stops when the pipe closes, i.e.
        when this process exits (or stop() closes it). PR_SET_PDEATHSIG would fire when the
        *thread* that spawned it ends, and API requests run on pool threads that come and go.
        """
        full = [*self.prefix, *argv]
        log.info("starting %s", shlex.join(full))
        return subprocess.Popen(full, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
