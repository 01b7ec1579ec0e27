"""paramiko for load: cooperative under gevent (its socket and thread become greenlets once
Locust has monkey-patched), TCP_NODELAY set on every connection (without it a command's
small packets wait on delayed ACKs: +40 ms per command), host keys not checked (the lab's
own devices only). The PTY dialogue is the runner's
(bench_runner.modes.clients.pty_dialogue): wait for the prompt, ``terminal length 0``,
``terminal width 511``, the command with its echo, exit.
"""

import re
import socket

import paramiko

CONNECT_TIMEOUT_S = 20.0
PROMPT_PATTERN = re.compile(r"[\w.-]+[#>]\s*$")
SETUP_COMMANDS = ("terminal length 0", "terminal width 511")
TERMINAL = ("vt100", 511, 24)
READ_CHUNK = 65536


class OperationError(Exception):
    """An operation's answer was not what the device gives on success."""


def connect(host: str, port: int, username: str, password: str) -> paramiko.Transport:
    sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    transport = paramiko.Transport(sock)
    try:
        transport.start_client(timeout=CONNECT_TIMEOUT_S)
        transport.auth_password(username, password)
    except BaseException:
        transport.close()
        raise
    return transport


def check_cli_output(command: str, output: str) -> str:
    if not output.strip():
        raise OperationError(f"{command}: empty output")
    if output.lstrip().startswith("%"):
        raise OperationError(f"{command}: {output.strip().splitlines()[0]}")
    return output


def exec_command(transport: paramiko.Transport, command: str) -> str:
    """One exec channel: the command, its whole output, exit status 0."""
    channel = transport.open_session(timeout=CONNECT_TIMEOUT_S)
    try:
        channel.settimeout(CONNECT_TIMEOUT_S)
        channel.exec_command(command)
        chunks = []
        while data := channel.recv(READ_CHUNK):
            chunks.append(data)
        status = channel.recv_exit_status()
    finally:
        channel.close()
    output = b"".join(chunks).decode("utf-8", "replace")
    if status != 0:
        raise OperationError(f"{command}: exit status {status}")
    return check_cli_output(command, output)


class _Shell:
    def __init__(self, channel: paramiko.Channel) -> None:
        self._channel = channel
        self._prompt: re.Pattern[str] = PROMPT_PATTERN

    def read_initial_prompt(self) -> None:
        text = self._read_until_prompt()
        match = PROMPT_PATTERN.search(text)
        assert match is not None
        self._prompt = re.compile(r"(?:\A|[\r\n])" + re.escape(match.group(0).rstrip()) + r"\s*\Z")

    def send(self, command: str) -> str:
        self._channel.sendall((command + "\n").encode())
        lines = self._read_until_prompt().replace("\r\n", "\n").split("\n")
        if command not in lines[0]:
            raise OperationError(f"{command}: echo not found, got {lines[0].strip()!r}")
        return "\n".join(lines[1:-1])

    def _read_until_prompt(self) -> str:
        text = ""
        while not self._prompt.search(text):
            data = self._channel.recv(READ_CHUNK)
            if not data:
                raise OperationError(f"shell closed while waiting for the prompt: {text[-80:]!r}")
            text += data.decode("utf-8", "replace")
        return text


def pty_command(transport: paramiko.Transport, command: str) -> str:
    """A PTY shell's life on a kept connection, as ssh/pty-reuse: prompt, session prep,
    the command, exit."""
    channel = transport.open_session(timeout=CONNECT_TIMEOUT_S)
    try:
        channel.settimeout(CONNECT_TIMEOUT_S)
        term, width, height = TERMINAL
        channel.get_pty(term=term, width=width, height=height)
        channel.invoke_shell()
        shell = _Shell(channel)
        shell.read_initial_prompt()
        for setup in SETUP_COMMANDS:
            answer = shell.send(setup)
            if answer.strip().startswith("%"):
                raise OperationError(f"{setup}: {answer.strip()}")
        output = check_cli_output(command, shell.send(command))
        channel.sendall(b"exit\n")
        while channel.recv(READ_CHUNK):
            pass
    finally:
        channel.close()
    return output
