"""scrapli through the jump host, its own way: the system transport (the OpenSSH ``ssh``
binary in a PTY that scrapli drives) given an ssh_config whose ProxyJump names the jump host.
ssh runs ProxyJump as a second ssh to the jump host (``-W``, reading the same config file),
in scrapli's terminal. The config is written per session in a private temporary directory,
removed after.

Each hop logs in with its own password. The device's is scrapli's: it answers ssh's prompt
in the terminal, as in the direct scrapli-system row. The jump host's cannot be typed there
(scrapli answers every password prompt with the device's), and ssh_config cannot give one hop
an environment of its own, so ssh asks an askpass program for every password
(``SSH_ASKPASS_REQUIRE=force``, as the OpenSSH client's jump rows do): the program answers the
jump host's prompt and hands any other to the terminal, echo off, as ssh would have asked it.
The jump host's password is on no disk and no command line: it is held in an anonymous
in-memory file of the runner's (memfd), which the program reads through /proc.

The LAN's round trips are not counted: the device's session is inside ssh's processes, as
for the OpenSSH client's jump rows (jump_lan.py)."""

import os
import re
import shlex
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.openssh_jump import askpass_env
from bench_runner.modes.clients.scrapli_ssh import LIBRARY_TIMEOUT_S, SyncScrapliSession
from bench_runner.modes.mode import Mode

_HOST = re.compile(r"[A-Za-z0-9._:-]+")
_USERNAME = re.compile(r"[A-Za-z0-9._-]+")
"""What an ssh_config line carries as one literal word: no quotes, spaces, comments, Host
pattern characters (``*?!,``) or ``%`` tokens; a name needing them is refused, not escaped."""


def _word(what: str, value: str, allowed: re.Pattern[str]) -> str:
    if not allowed.fullmatch(value):
        raise ValueError(f"{what} {value!r} cannot be written in an ssh_config")
    return value


def _proxy_jump(jump: Target) -> str:
    """``user@host:port`` (an IPv6 address in brackets)."""
    host = _word("jump host", jump.host, _HOST)
    if ":" in host:
        host = f"[{host}]"
    return f"{_word('jump host username', jump.username, _USERNAME)}@{host}:{jump.ssh_port}"


def ssh_config(device_host: str, jump: Target) -> str:
    """The device reached through ``jump`` (ProxyJump); the jump host's login by password
    alone, prompted once; neither hop's host key recorded (the lab regenerates them)."""
    device = _word("device host", device_host, _HOST)
    jump_host = _word("jump host", jump.host, _HOST)
    if device == jump_host:
        raise ValueError(f"the device and the jump host are both {device!r}")
    return (
        "# bench-runner: scrapli through the jump host, for one session\n"
        f"Host {device}\n"
        f"    ProxyJump {_proxy_jump(jump)}\n"
        f"Host {jump_host}\n"
        "    PreferredAuthentications password\n"
        "    PubkeyAuthentication no\n"
        "    NumberOfPasswordPrompts 1\n"
        f"    ConnectTimeout {int(LIBRARY_TIMEOUT_S)}\n"
        "    LogLevel ERROR\n"
        "Host *\n"
        "    StrictHostKeyChecking no\n"
        "    UserKnownHostsFile /dev/null\n"
    )


def jump_prompt(jump: Target) -> str:
    """ssh's password prompt for the jump host, as it truncates the user and host."""
    return f"{jump.username[:30]}@{jump.host[:128]}'s password: "


def askpass_script(jump_prompt: str, secret: str) -> str:
    """Answers ``jump_prompt`` with the content of ``secret``; any other prompt is asked on
    the terminal (echo off before the prompt shows, so nothing typed at it is echoed)."""
    return (
        "#!/bin/sh\n"
        f'if [ "$1" = {shlex.quote(jump_prompt)} ]; then\n'
        f"    exec cat {shlex.quote(secret)}\n"
        "fi\n"
        "exec 3<>/dev/tty\n"
        "stty -echo <&3\n"
        "trap 'stty echo <&3' EXIT\n"
        "printf '%s' \"$1\" >&3\n"
        "IFS= read -r answer <&3\n"
        "printf '\\n' >&3\n"
        "printf '%s\\n' \"$answer\"\n"
    )


@contextmanager
def _in_memory(secret: str) -> Iterator[str]:
    """A path that reads ``secret`` while the block runs: the runner's memfd, via /proc."""
    descriptor = os.memfd_create("bench-jump-password")
    try:
        os.write(descriptor, (secret + "\n").encode())
        yield f"/proc/{os.getpid()}/fd/{descriptor}"
    finally:
        os.close(descriptor)


@contextmanager
def _environment(variables: dict[str, str]) -> Iterator[None]:
    """``variables`` in the runner's environment while the block runs: scrapli spawns ssh
    with the process's environment (it passes none of its own), and the runner measures one
    session at a time."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _jump_files(target: Target) -> Iterator[tuple[Path, dict[str, str]]]:
    """The ssh_config and the askpass program in a private directory, and the environment
    that makes ssh ask it; all gone after the block."""
    jump = target.jump_login()
    config_text = ssh_config(target.host, jump)
    with (
        _in_memory(jump.password) as secret,
        tempfile.TemporaryDirectory(prefix="bench-scrapli-jump-") as directory,
    ):
        config = Path(directory) / "ssh_config"
        config.write_text(config_text)
        program = Path(directory) / "askpass"
        program.touch(mode=0o700)
        program.write_text(askpass_script(jump_prompt(jump), secret))
        yield config, askpass_env(program)


@asynccontextmanager
async def pty_fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration ``IOSXEDriver.open`` (ssh through the jump host: both logins, a PTY
    shell, privilege check, terminal length 0 and width), send_command per command, close;
    phases as the direct rows (connect, commands, close)."""
    with _jump_files(target) as (config, env):
        yield SyncScrapliSession(
            target, "system", ssh_config_file=str(config), opening=lambda: _environment(env)
        )
