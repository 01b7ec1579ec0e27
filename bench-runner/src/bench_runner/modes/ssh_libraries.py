"""SSH modes with the libraries people use: paramiko, the OpenSSH client, netmiko, scrapli.

Each class is the same mode (same name and round-trip lower bound) as the asyncssh floor
client's, driven by another client. Blocking libraries (paramiko, netmiko) run in a worker
thread so the runner's event loop keeps sampling resources; their own timeouts bound a
stuck call (the iteration timeout stops waiting for it, it cannot kill the thread).
"""

import asyncio
import contextlib
import os
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any, ClassVar

import paramiko
from netmiko import ConnectHandler
from scrapli.driver.core import AsyncIOSXEDriver, IOSXEDriver
from scrapli.transport.base.base_socket import Socket as ScrapliSocket

from bench_runner.modes.base import RoundTripBound, Session, Target
from bench_runner.modes.ssh_exec import SshBatchExec, SshFreshConnection, SshReuseConnection
from bench_runner.modes.ssh_pty import SshPtyFresh
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary

LIBRARY_TIMEOUT_S = 60.0
CONTROL_MASTER_WAIT_S = 30.0


# --- paramiko -------------------------------------------------------------------------------


def paramiko_connect(target: Target) -> paramiko.SSHClient:
    """Password login only; host keys accepted unchecked (the lab device regenerates them)."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(
        target.host,
        target.ssh_port,
        username=target.username,
        password=target.password,
        look_for_keys=False,
        allow_agent=False,
        timeout=LIBRARY_TIMEOUT_S,
        banner_timeout=LIBRARY_TIMEOUT_S,
        auth_timeout=LIBRARY_TIMEOUT_S,
    )
    return client


def paramiko_open(target: Target, phases: PhaseTimer) -> paramiko.Transport:
    """What ``SSHClient.connect`` does with a password and no keys or agent, step by step
    so each can be timed: a TCP socket (tcp_connect), ``Transport.start_client``
    (version lines and key exchange: key_exchange), ``auth_password`` (auth). The host key
    is not checked (the lab device regenerates it), as AutoAddPolicy would not either."""
    with phases.measure("tcp_connect"):
        sock = socket.create_connection((target.host, target.ssh_port), timeout=LIBRARY_TIMEOUT_S)
    transport = paramiko.Transport(sock)
    transport.banner_timeout = LIBRARY_TIMEOUT_S
    transport.auth_timeout = LIBRARY_TIMEOUT_S
    transport.use_compression(compress=False)
    try:
        with phases.measure("key_exchange"):
            transport.start_client(timeout=LIBRARY_TIMEOUT_S)
        with phases.measure("auth"):
            transport.auth_password(target.username, target.password)
    except BaseException:
        transport.close()
        raise
    return transport


def paramiko_exec(transport: paramiko.Transport, command: str, phases: PhaseTimer) -> str:
    """What ``SSHClient.exec_command`` does: a session channel (channel_open), the exec
    request, then the output to EOF and the exit status (commands)."""
    with phases.measure("channel_open"):
        channel = transport.open_session(timeout=LIBRARY_TIMEOUT_S)
    with phases.measure("commands"):
        channel.settimeout(LIBRARY_TIMEOUT_S)
        channel.exec_command(command)
        output = channel.makefile("rb").read().decode("utf-8", errors="replace")
        status = channel.recv_exit_status()
    if status != 0:
        raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
    return output


class _ParamikoFreshSession:
    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for command in commands:
            transport = paramiko_open(self._target, self.phases)
            try:
                outputs.append(paramiko_exec(transport, command, self.phases))
            finally:
                with self.phases.measure("close"):
                    transport.close()
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class _ParamikoKeptSession:
    def __init__(self, transport: paramiko.Transport, phases: PhaseTimer, *, batch: bool) -> None:
        self._transport = transport
        self.phases = phases
        self._batch = batch

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [paramiko_exec(self._transport, "\n".join(commands), self.phases)]
        return [paramiko_exec(self._transport, command, self.phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def _paramiko_kept(target: Target, *, batch: bool) -> AsyncIterator[Session]:
    # The setup's phases land in the timer too; the runner's take() before the first
    # measured iteration discards them.
    phases = PhaseTimer()
    transport = await asyncio.to_thread(paramiko_open, target, phases)
    try:
        yield _ParamikoKeptSession(transport, phases, batch=batch)
    finally:
        transport.close()


class ParamikoFreshConnection(SshFreshConnection):
    """paramiko: a new SSHClient (TCP, key exchange, password auth) per command, exec,
    close. Lower bound 4 round trips per command, as for the mode. Expected 12 per command:
    added delay 12.4 and 11.4 per command at 30 ms in two runs (README); 8 protocol
    exchanges per connection on the wire, the rest is TCP-level waiting (paramiko's
    transport writes each SSH message on its own, so sshd's delayed ACKs show)."""

    client = "paramiko"
    floor = False
    description = "paramiko; a new SSHClient connection per command, exec_command, close"
    expected_bound = RoundTripBound(per_command=12)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _ParamikoFreshSession(target)


class ParamikoReuseConnection(SshReuseConnection):
    """paramiko: one SSHClient kept; exec_command (a new channel) per command. Lower bound 2
    round trips per command. Expected 3 per command: added delay 2.9 and 3.0 per command
    (README); 2 exchanges per command on the wire (channel open, exec), plus a wait for the
    channel's close."""

    client = "paramiko"
    floor = False
    description = "paramiko; one SSHClient kept; exec_command (new channel) per command"
    expected_bound = RoundTripBound(per_command=3)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _paramiko_kept(target, batch=False) as session:
            yield session


class ParamikoBatchExec(SshBatchExec):
    """paramiko: one SSHClient kept; one exec_command per iteration with every command
    separated by newlines. Lower bound 2 round trips per iteration. Expected 3: added delay
    2.7 and 3.1 at 30 ms (README); 2 exchanges on the wire (channel open, exec), plus the
    wait for exit status and close, as in reuse-conn."""

    client = "paramiko"
    floor = False
    description = "paramiko; one SSHClient kept; one exec_command with every command"
    expected_bound = RoundTripBound(fixed=3)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _paramiko_kept(target, batch=True) as session:
            yield session


# --- OpenSSH client -------------------------------------------------------------------------

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
def openssh_version() -> str:
    """``ssh -V`` (printed on stderr), e.g. ``OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15``."""
    try:
        proc = subprocess.run(
            ["ssh", "-V"], capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return "unknown"
    return (proc.stderr or proc.stdout).strip() or "unknown"


def openssh_argv(target: Target, *extra: str) -> list[str]:
    """sshpass reads the password from $SSHPASS (never on the command line)."""
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


class _OpensshFreshSession:
    def __init__(self, target: Target) -> None:
        self._target = target

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await openssh_exec(self._target, command) for command in commands]


class _OpensshMuxSession:
    def __init__(self, target: Target, control_path: Path, *, batch: bool) -> None:
        self._target = target
        self._mux = ("-o", "ControlMaster=no", "-o", f"ControlPath={control_path}")
        self._batch = batch

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [await openssh_exec(self._target, "\n".join(commands), *self._mux)]
        return [await openssh_exec(self._target, command, *self._mux) for command in commands]


@asynccontextmanager
async def _openssh_master(target: Target, *, batch: bool) -> AsyncIterator[Session]:
    """A ControlMaster connection kept as a child process (-N: no command); every measured
    ssh invocation multiplexes a new channel over it, as with Ansible's ControlPersist."""
    with tempfile.TemporaryDirectory(prefix="bench-ssh-") as directory:
        control_path = Path(directory) / "mux"
        master = await asyncio.create_subprocess_exec(
            *openssh_argv(
                target, "-N", "-o", "ControlMaster=yes", "-o", f"ControlPath={control_path}"
            ),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "SSHPASS": target.password},
        )
        try:
            await _wait_for_socket(master, control_path)
            yield _OpensshMuxSession(target, control_path, batch=batch)
        finally:
            if master.returncode is None:
                master.terminate()
            with contextlib.suppress(ProcessLookupError):
                await master.wait()


async def _wait_for_socket(master: asyncio.subprocess.Process, control_path: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + CONTROL_MASTER_WAIT_S
    while not await asyncio.to_thread(control_path.exists):
        if master.returncode is not None:
            stderr = await master.stderr.read() if master.stderr else b""
            raise IterationError(
                f"ssh ControlMaster exited {master.returncode}: "
                f"{stderr.decode(errors='replace').strip()}"
            )
        if loop.time() > deadline:
            raise IterationError(
                f"ssh ControlMaster socket missing after {CONTROL_MASTER_WAIT_S:g} s"
            )
        await asyncio.sleep(0.05)


class OpensshFreshConnection(SshFreshConnection):
    """The OpenSSH client (``ssh user@device cmd``, password via sshpass), a new process and
    connection per command. Lower bound 4 round trips per command. Expected 10 per command:
    10 exchanges per connection on the wire, in every iteration at local and regional
    (README); the added-delay count straddles it (8.6 and 11.3 per command in two runs)
    because the local p50 is the ssh process's CPU time, which varies more than the RTT."""

    client = "openssh"
    floor = False
    description = "OpenSSH ssh (via sshpass); a new process and connection per command"
    expected_bound = RoundTripBound(per_command=10)

    def client_version(self) -> str:
        return openssh_version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _OpensshFreshSession(target)


class OpensshReuseConnection(SshReuseConnection):
    """The OpenSSH client multiplexed over a kept ControlMaster connection: per command a
    new ssh process that opens a channel on the master. Lower bound 2 round trips per
    command (the local mux socket adds no network round trip). Expected 2 per command: added
    delay 10.2 and 10.8 for 5 commands (README), channel open and exec through the master.
    The wire shows 3 direction changes per command: the master's window adjust crosses the
    exit status without a wait."""

    client = "openssh"
    floor = False
    description = (
        "OpenSSH ssh; ControlMaster connection kept; per command a new ssh process "
        "multiplexing an exec channel over it (Ansible ControlPersist)"
    )
    expected_bound = RoundTripBound(per_command=2)

    def client_version(self) -> str:
        return openssh_version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _openssh_master(target, batch=False) as session:
            yield session


class OpensshBatchExec(SshBatchExec):
    """The OpenSSH client over a kept ControlMaster connection, one exec per iteration with
    every command separated by newlines. Lower bound 2 round trips per iteration. Expected
    2: added delay 2.4 and 2.1 (README), channel open and exec through the master."""

    client = "openssh"
    floor = False
    description = (
        "OpenSSH ssh; ControlMaster connection kept; one ssh process per iteration "
        "running every command"
    )
    expected_bound = RoundTripBound(fixed=2)

    def client_version(self) -> str:
        return openssh_version()

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        async with _openssh_master(target, batch=True) as session:
            yield session


# --- netmiko --------------------------------------------------------------------------------


class _NetmikoSession:
    """Phases: connect (ConnectHandler: connection, shell, session preparation), commands,
    close (disconnect); netmiko exposes nothing finer."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        with self.phases.measure("connect"):
            connection = ConnectHandler(
                device_type="cisco_ios",
                host=self._target.host,
                port=self._target.ssh_port,
                username=self._target.username,
                password=self._target.password,
                use_keys=False,
                allow_agent=False,
                ssh_config_file=None,
                conn_timeout=LIBRARY_TIMEOUT_S,
                auth_timeout=LIBRARY_TIMEOUT_S,
            )
        try:
            with self.phases.measure("commands"):
                return [
                    str(connection.send_command(command, read_timeout=LIBRARY_TIMEOUT_S))
                    for command in commands
                ]
        finally:
            with self.phases.measure("close"):
                connection.disconnect()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class NetmikoPtyFresh(SshPtyFresh):
    """netmiko (device_type cisco_ios, default settings): per iteration ConnectHandler
    (connection, PTY shell, netmiko's session preparation: prompt detection, terminal width,
    terminal length 0), send_command per command, disconnect. Lower bound 6 + n round trips,
    as for the mode. Expected 20 + n: added delay 24.6 and 24.8 for 5 commands at 30 ms in
    two runs (README), the asyncssh client's 14 + n plus netmiko's prompt probes (a newline,
    then a read) and its terminal width command; 29 direction changes on the wire."""

    client = "netmiko"
    floor = False
    description = (
        "netmiko cisco_ios; per iteration ConnectHandler (session preparation), "
        "send_command per command, disconnect"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _NetmikoSession(target)


# --- scrapli --------------------------------------------------------------------------------

SCRAPLI_TRANSPORT_LIBRARIES = {
    "asyncssh": "asyncssh",
    "system": "openssh",
    "paramiko": "paramiko",
    "ssh2": "ssh2-python",
}
"""scrapli's SSH transport plugins and the library (or program) each one drives."""


def scrapli_transport_version(distribution: str, transport: str) -> str:
    """``scrapli 2026.2.20, transport ssh2: ssh2-python 1.2.0.post1``."""
    library = SCRAPLI_TRANSPORT_LIBRARIES[transport]
    underneath = openssh_version() if library == "openssh" else f"{library} {version(library)}"
    return f"{distribution} {version(distribution)}, transport {transport}: {underneath}"


class _TransportFirstSocket(ScrapliSocket):
    """scrapli's socket for its paramiko and ssh2 transports, closing paramiko's Transport
    before the socket. scrapli's paramiko transport closes its channel, then this socket,
    and never the ``paramiko.Transport`` (``session``) reading it: that thread's next read
    then fails on the closed descriptor and paramiko logs ``Socket exception: Bad file
    descriptor (9)``, once per connection. ``Transport.close`` marks its packetizer closed
    before closing the same socket, so the thread ends on an end of file, as after
    ``SSHClient.close``: the same packets, in the order paramiko expects. The ssh2
    transport's ``session`` is libssh2's, which has no thread: closed as it was."""

    def __init__(self, owner: Any, host: str, port: int, timeout: float) -> None:
        super().__init__(host=host, port=port, timeout=timeout)
        self._owner = owner

    def close(self) -> None:
        session = getattr(self._owner, "session", None)
        if isinstance(session, paramiko.Transport):
            session.close()
        super().close()


def scrapli_nodelay_socket(transport: Any, host: str, port: int, timeout: float) -> None:
    """Give scrapli's paramiko or ssh2 transport a connected socket with TCP_NODELAY: both
    open their own ``scrapli.transport.base.base_socket.Socket`` only when they have none
    (``if not self.socket``), and neither sets the option (each SSH message would wait for
    the device's delayed ACK). The asyncssh transport needs nothing (asyncio sets
    TCP_NODELAY on every TCP transport) and the system transport cannot be given one
    (``ssh`` makes its own socket, and sets TCP_NODELAY itself for a session with a PTY).
    The socket closes paramiko's Transport before itself (``_TransportFirstSocket``)."""
    sock = _TransportFirstSocket(transport, host=host, port=port, timeout=timeout)
    sock.open()
    assert sock.sock is not None  # open() connected it or raised
    sock.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    transport.socket = sock


def _scrapli_options(target: Target, transport: str) -> dict[str, Any]:
    return {
        "host": target.host,
        "port": target.ssh_port,
        "auth_username": target.username,
        "auth_password": target.password,
        "auth_strict_key": False,
        "ssh_config_file": False,
        "transport": transport,
        "timeout_socket": LIBRARY_TIMEOUT_S,
        "timeout_transport": LIBRARY_TIMEOUT_S,
        "timeout_ops": LIBRARY_TIMEOUT_S,
    }


class _ScrapliSession:
    """asyncssh transport (``AsyncIOSXEDriver``, scrapli's asyncio transports). Phases:
    connect (open: connection, shell, privilege and terminal setup), commands, close."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        driver = AsyncIOSXEDriver(**_scrapli_options(self._target, "asyncssh"))
        with self.phases.measure("connect"):
            await driver.open()
        try:
            with self.phases.measure("commands"):
                return [(await driver.send_command(command)).result for command in commands]
        finally:
            with self.phases.measure("close"):
                await driver.close()


class _ScrapliSyncSession:
    """A synchronous transport (``IOSXEDriver``: system, paramiko, ssh2) in a worker
    thread; the same phases."""

    def __init__(self, target: Target, transport: str) -> None:
        self._target = target
        self._transport = transport
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        target = self._target
        driver = IOSXEDriver(**_scrapli_options(target, self._transport))
        with self.phases.measure("connect"):
            if self._transport in ("paramiko", "ssh2"):
                scrapli_nodelay_socket(
                    driver.transport, target.host, target.ssh_port, LIBRARY_TIMEOUT_S
                )
            driver.open()
        try:
            with self.phases.measure("commands"):
                return [driver.send_command(command).result for command in commands]
        finally:
            with self.phases.measure("close"):
                driver.close()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class ScrapliPtyFresh(SshPtyFresh):
    """scrapli AsyncIOSXEDriver over its asyncssh transport: per iteration open (connection,
    PTY shell, privilege check, terminal length 0 and width), send_command per command,
    close. Lower bound 6 + n round trips, as for the mode. Expected 20 + n: added delay 24.6
    and 26.3 for 5 commands at 30 ms in two runs (README), the asyncssh client's 14 + n plus
    scrapli's privilege check and prompt reads; 26 direction changes on the wire.

    The client name ``scrapli`` (without a transport) is this asyncssh transport, as it has
    been since the first results; the other transports are ``scrapli-<transport>``."""

    client = "scrapli"
    floor = False
    transport_plugin: ClassVar[str] = "asyncssh"
    description = (
        "scrapli AsyncIOSXEDriver (asyncssh transport); per iteration open, "
        "send_command per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)

    def client_version(self) -> str:
        return scrapli_transport_version("scrapli", self.transport_plugin)

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        if self.transport_plugin == "asyncssh":
            yield _ScrapliSession(target)
        else:
            yield _ScrapliSyncSession(target, self.transport_plugin)


class ScrapliSystemPtyFresh(ScrapliPtyFresh):
    """scrapli IOSXEDriver over its system transport (the OpenSSH ``ssh`` binary in a PTY
    that scrapli drives, typing the password itself). Lower bound 6 + n round trips.
    Expected 21 + n, counted on the wire at local (README): OpenSSH's login (its fresh-conn
    count up to the shell) plus scrapli's session preparation, as with asyncssh."""

    client = "scrapli-system"
    transport_plugin = "system"
    description = (
        "scrapli IOSXEDriver (system transport: OpenSSH ssh); per iteration open, "
        "send_command per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)


class ScrapliParamikoPtyFresh(ScrapliPtyFresh):
    """scrapli IOSXEDriver over its paramiko transport (socket with TCP_NODELAY). Lower
    bound 6 + n round trips. Expected 20 + n, counted on the wire at local (README)."""

    client = "scrapli-paramiko"
    transport_plugin = "paramiko"
    description = (
        "scrapli IOSXEDriver (paramiko transport); per iteration open, send_command per "
        "command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)


class ScrapliSsh2PtyFresh(ScrapliPtyFresh):
    """scrapli IOSXEDriver over its ssh2 transport (ssh2-python, libssh2; socket with
    TCP_NODELAY). Lower bound 6 + n round trips. Expected 20 + n, counted on the wire at
    local (README)."""

    client = "scrapli-ssh2"
    transport_plugin = "ssh2"
    description = (
        "scrapli IOSXEDriver (ssh2 transport: ssh2-python, libssh2); per iteration open, "
        "send_command per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=21)
