"""The OpenSSH client (``ssh``, the password from $SSHPASS through sshpass, never on the
command line): a process and connection per command, commands multiplexed over a kept
ControlMaster (Ansible's ControlPersist), and ``ssh -N -L`` forwards."""

import asyncio
import contextlib
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.tunnel_http import (
    TUNNEL_HOST,
    TUNNEL_PORT,
    BulkSession,
    RequestSession,
    connect_local,
    http_get,
)
from bench_runner.modes.mode import Mode
from bench_runner.validation import IterationError, failure_summary

CONTROL_MASTER_WAIT_S = 30.0
FORWARD_WAIT_S = 30.0
OPENSSH_OPTIONS = (
    "-F",
    "/dev/null",  # nothing from the local user's ssh_config
    "-o",
    "StrictHostKeyChecking=no",  # the lab device regenerates its host keys
    "-o",
    "UserKnownHostsFile=/dev/null",
    "-o",
    "PreferredAuthentications=password",
    "-o",
    "PubkeyAuthentication=no",
    "-o",
    "NumberOfPasswordPrompts=1",
    "-o",
    "ConnectTimeout=30",
    "-o",
    "LogLevel=ERROR",
)


@cache
def version() -> str:
    """``ssh -V`` (printed on stderr), e.g. ``OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15``."""
    try:
        proc = subprocess.run(
            ["ssh", "-V"], capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return "unknown"
    return (proc.stderr or proc.stdout).strip() or "unknown"


def openssh_argv(target: Target, *extra: str) -> list[str]:
    return [
        "sshpass",
        "-e",
        "ssh",
        *OPENSSH_OPTIONS,
        "-p",
        str(target.ssh_port),
        *extra,
        f"{target.username}@{target.host}",
    ]


async def _spawn(target: Target, *extra: str) -> asyncio.subprocess.Process:
    """A kept ssh process (a master or a forward), its stderr kept for the reason it may
    exit with."""
    return await asyncio.create_subprocess_exec(
        *openssh_argv(target, *extra),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "SSHPASS": target.password},
    )


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.terminate()
    with contextlib.suppress(ProcessLookupError):
        await process.wait()


async def _exited(process: asyncio.subprocess.Process, what: str) -> IterationError:
    stderr = await process.stderr.read() if process.stderr else b""
    return IterationError(
        f"{what} exited {process.returncode}: {stderr.decode(errors='replace').strip()}"
    )


async def openssh_exec(target: Target, command: str, *extra: str) -> str:
    process = await asyncio.create_subprocess_exec(
        *openssh_argv(target, *extra),
        command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "SSHPASS": target.password},
    )
    stdout, stderr = await process.communicate()
    output = stdout.decode("utf-8", errors="replace")
    if process.returncode != 0:
        reason = failure_summary(output) or failure_summary(stderr.decode(errors="replace"))
        raise IterationError(f"{command}: ssh exit status {process.returncode}: {reason}")
    return output


class _FreshSession:
    def __init__(self, target: Target) -> None:
        self._target = target

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await openssh_exec(self._target, command) for command in commands]


class _MultiplexedSession:
    def __init__(self, target: Target, control_path: Path, *, batch: bool) -> None:
        self._target = target
        self._mux = ("-o", "ControlMaster=no", "-o", f"ControlPath={control_path}")
        self._batch = batch

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [await openssh_exec(self._target, "\n".join(commands), *self._mux)]
        return [await openssh_exec(self._target, command, *self._mux) for command in commands]


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A new ssh process and connection per command."""
    yield _FreshSession(target)


@asynccontextmanager
async def multiplexed(mode: Mode, target: Target, *, batch: bool) -> AsyncIterator[Session]:
    """A ControlMaster connection kept as a child process (-N: no command); every measured
    ssh invocation multiplexes a new channel over it, as with Ansible's ControlPersist."""
    with tempfile.TemporaryDirectory(prefix="bench-ssh-") as directory:
        control_path = Path(directory) / "mux"
        master = await _spawn(
            target, "-N", "-o", "ControlMaster=yes", "-o", f"ControlPath={control_path}"
        )
        try:
            deadline = time.monotonic() + CONTROL_MASTER_WAIT_S
            while not await asyncio.to_thread(control_path.exists):
                if master.returncode is not None:
                    raise await _exited(master, "ssh ControlMaster")
                if time.monotonic() > deadline:
                    raise IterationError(
                        f"ssh ControlMaster socket missing after {CONTROL_MASTER_WAIT_S:g} s"
                    )
                await asyncio.sleep(0.05)
            yield _MultiplexedSession(target, control_path, batch=batch)
        finally:
            await _stop(master)


# --- ssh -L (tunnel) ------------------------------------------------------------------------


def _free_local_port() -> int:
    with socket.socket() as probe:
        probe.bind((TUNNEL_HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def _forward_answers(port: int) -> bool:
    try:
        sock = connect_local(port)
    except OSError:
        return False
    try:
        sock.settimeout(5.0)
        return http_get(sock, "/", keep_alive=False)[0] == 200
    except (OSError, IterationError):
        return False
    finally:
        sock.close()


@asynccontextmanager
async def _forward(target: Target) -> AsyncIterator[int]:
    """``ssh -N -L port:127.0.0.1:8080`` kept as a child process; ready once a connection
    through it gets an HTTP answer (``ExitOnForwardFailure`` ends ssh if it cannot listen)."""
    port = _free_local_port()
    forward = f"{TUNNEL_HOST}:{port}:{TUNNEL_HOST}:{TUNNEL_PORT}"
    process = await _spawn(target, "-N", "-o", "ExitOnForwardFailure=yes", "-L", forward)
    try:
        deadline = time.monotonic() + FORWARD_WAIT_S
        while not await asyncio.to_thread(_forward_answers, port):
            if process.returncode is not None:
                raise await _exited(process, "ssh -L")
            if time.monotonic() > deadline:
                raise IterationError(f"ssh -L forward not answering after {FORWARD_WAIT_S:g} s")
            await asyncio.sleep(0.05)
        yield port
    finally:
        await _stop(process)


@asynccontextmanager
async def tunnel_bulk(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """``ssh -N -L`` kept; per iteration a new connection through it and one download."""
    async with _forward(target) as port:
        yield BulkSession(lambda: connect_local(port), mode.bulk_size())


@asynccontextmanager
async def tunnel_requests(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """``ssh -N -L`` kept; one keep-alive connection through it; one small GET per command."""
    async with _forward(target) as port:
        session = RequestSession(lambda: connect_local(port))
        try:
            yield session
        finally:
            session.close()
