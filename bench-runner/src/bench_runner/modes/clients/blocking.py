"""What the blocking and gevent-based clients share: one worker thread per session (a gevent
hub and the sockets it watches belong to one thread), a TCP socket with Nagle off, and the
prompt dialogue over blocking reads and writes."""

import asyncio
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from bench_runner.modes.clients.pty_dialogue import SETUP_COMMANDS, PromptReader, command_output
from bench_runner.validation import IterationError, failure_summary, validate_output

IO_TIMEOUT_S = 60.0
T = TypeVar("T")


def nodelay_connection(host: str, port: int) -> socket.socket:
    """A blocking TCP connection with Nagle off (before any SSH byte is written): libssh2
    and libssh write each SSH message with its own ``send``, and without it a kept session
    waits for the device's delayed ACK, about 40 ms per command."""
    sock = socket.create_connection((host, port), timeout=IO_TIMEOUT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


class Worker:
    """One thread for one session's library calls."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-ssh")

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, partial(function, *args)
        )

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


def run_pty_dialogue(
    read: Callable[[], bytes], write: Callable[[bytes], None], commands: Sequence[str]
) -> list[str]:
    """The dialogue over blocking ``read`` (b"" at EOF) and ``write``: prompt, session
    prep, every command, ``exit`` (written, not waited for here)."""
    reader = PromptReader()

    def reply() -> str:
        while (text := reader.feed(read().decode("utf-8", errors="replace"))) is None:
            pass
        return text

    def send(command: str) -> str:
        write(command.encode() + b"\n")
        return command_output(command, reply())

    reply()
    for setup_command in SETUP_COMMANDS:
        validate_output(setup_command, send(setup_command), allow_empty=True)
    outputs = [send(command) for command in commands]
    write(b"exit\n")
    return outputs


def check_exit_status(command: str, status: int | None, output: str) -> str:
    if status != 0:
        raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
    return output
