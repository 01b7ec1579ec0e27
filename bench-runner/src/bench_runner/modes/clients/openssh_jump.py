"""The OpenSSH client through the jump host, as people configure it: ``ProxyCommand ssh -W
%h:%p`` (what ``-J`` / ProxyJump runs), optionally over a ControlMaster kept to the jump host
(the first hop) or to the device through it (Ansible's ControlPersist behind a bastion).

Each hop has its own password: the device's comes from $SSHPASS through sshpass, as for the
direct modes; the jump host's from an askpass program (``SSH_ASKPASS_REQUIRE=force``) that
reads it from a file only this process can read. Not a second sshpass: ssh ends its
ProxyCommand with SIGHUP when it exits, which sshpass does not pass on to its ssh, and the
orphan would hold the runner's pipes open."""

import asyncio
import os
import shlex
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.openssh import OPENSSH_OPTIONS, openssh_exec
from bench_runner.modes.mode import Mode
from bench_runner.validation import IterationError

CONTROL_MASTER_WAIT_S = 30.0


@contextmanager
def _askpass(password: str) -> Iterator[Path]:
    """An askpass program printing the jump host's password, both in a private directory."""
    with tempfile.TemporaryDirectory(prefix="bench-jump-") as directory:
        secret = Path(directory) / "password"
        secret.touch(mode=0o600)
        secret.write_text(password + "\n")
        program = Path(directory) / "askpass"
        program.touch(mode=0o700)
        program.write_text(f"#!/bin/sh\nexec cat {shlex.quote(str(secret))}\n")
        yield program


def askpass_env(program: Path) -> dict[str, str]:
    """What makes ssh ask ``program`` for the password, with or without a terminal."""
    return {"SSH_ASKPASS": str(program), "SSH_ASKPASS_REQUIRE": "force"}


def proxy_command(jump: Target, askpass: Path) -> str:
    """``ssh -W %h:%p`` to the jump host, logging in with the password ``askpass`` prints."""
    env = " ".join(f"{key}={shlex.quote(value)}" for key, value in askpass_env(askpass).items())
    return f"env {env} ssh {' '.join(OPENSSH_OPTIONS)} {_hop(jump)}"


def master_proxy_command(jump: Target, control_path: Path) -> str:
    """``ssh -W %h:%p`` through the jump host's ControlMaster at ``control_path``: no login."""
    options = " ".join(OPENSSH_OPTIONS)
    return f"ssh {options} -o ControlMaster=no -o ControlPath={control_path} {_hop(jump)}"


def _hop(jump: Target) -> str:
    return f"-p {jump.ssh_port} -W %h:%p {jump.username}@{jump.host}"


async def _master(argv: Sequence[str], control_path: Path, env: dict[str, str]) -> "_Master":
    """A ControlMaster kept as a child process, once its socket exists."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env},
    )
    master = _Master(process)
    deadline = time.monotonic() + CONTROL_MASTER_WAIT_S
    while not await asyncio.to_thread(control_path.exists):
        if process.returncode is not None:
            stderr = await process.stderr.read() if process.stderr else b""
            raise IterationError(
                f"ssh ControlMaster exited {process.returncode}: "
                f"{stderr.decode(errors='replace').strip()}"
            )
        if time.monotonic() > deadline:
            await master.stop()
            raise IterationError(
                f"ssh ControlMaster socket missing after {CONTROL_MASTER_WAIT_S:g} s"
            )
        await asyncio.sleep(0.05)
    return master


class _Master:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process

    async def stop(self) -> None:
        if self._process.returncode is None:
            self._process.terminate()
        with suppress(ProcessLookupError):
            await self._process.wait()


class _ExecSession:
    """One ssh process per command, its options carrying the way through the jump host."""

    def __init__(self, target: Target, options: Sequence[str]) -> None:
        self._target = target
        self._options = tuple(options)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await openssh_exec(self._target, command, *self._options) for command in commands]


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per command a new ssh process, a new login to the jump host (its ProxyCommand) and a
    new login to the device through it."""
    with _askpass(target.jump_login().password) as askpass:
        command = proxy_command(target.jump_login(), askpass)
        yield _ExecSession(target, ("-o", f"ProxyCommand={command}"))


@asynccontextmanager
async def master_to_jump(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A ControlMaster to the jump host kept (-N); per command a new ssh process whose
    ProxyCommand opens its direct-tcpip channel over the master, and a new device login."""
    jump = target.jump_login()
    with (
        _askpass(jump.password) as askpass,
        tempfile.TemporaryDirectory(prefix="bench-ssh-") as directory,
    ):
        control_path = Path(directory) / "jump"
        argv = [
            "ssh",
            *OPENSSH_OPTIONS,
            "-N",
            *("-o", "ControlMaster=yes", "-o", f"ControlPath={control_path}"),
            *("-p", str(jump.ssh_port), f"{jump.username}@{jump.host}"),
        ]
        master = await _master(argv, control_path, askpass_env(askpass))
        try:
            command = master_proxy_command(jump, control_path)
            yield _ExecSession(target, ("-o", f"ProxyCommand={command}"))
        finally:
            await master.stop()


@asynccontextmanager
async def master_to_device(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A ControlMaster to the device, through the jump host, kept (-N; Ansible's ControlPersist
    behind a bastion); per command a new ssh process multiplexing an exec channel over it."""
    with (
        _askpass(target.jump_login().password) as askpass,
        tempfile.TemporaryDirectory(prefix="bench-ssh-") as directory,
    ):
        control_path = Path(directory) / "device"
        proxy = ("-o", f"ProxyCommand={proxy_command(target.jump_login(), askpass)}")
        argv = [
            "sshpass",
            "-e",
            "ssh",
            *OPENSSH_OPTIONS,
            "-N",
            *proxy,
            *("-o", "ControlMaster=yes", "-o", f"ControlPath={control_path}"),
            *("-p", str(target.ssh_port), f"{target.username}@{target.host}"),
        ]
        master = await _master(argv, control_path, {"SSHPASS": target.password})
        try:
            yield _ExecSession(
                target, ("-o", "ControlMaster=no", "-o", f"ControlPath={control_path}")
            )
        finally:
            await master.stop()
