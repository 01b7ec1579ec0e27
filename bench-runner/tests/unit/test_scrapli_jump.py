"""scrapli through the jump host, its pure parts: the ssh_config it is given (ProxyJump, and
what it refuses to write), the askpass program answering the jump host's prompt only, the
jump host's password held in memory, and ssh's environment while scrapli spawns it."""

import os
import subprocess
from pathlib import Path

import pytest

from bench_runner.modes.base import Relay, Target
from bench_runner.modes.clients import scrapli_jump
from bench_runner.modes.clients.scrapli_jump import askpass_script, jump_prompt, ssh_config

JUMP = Target("198.18.0.5", 2222, 443, "jump", "jump-secret")
RELAY = Relay("jumphost", 22, "jump", "jump-secret", "headend", 443, "automation", "api")


def test_the_device_is_reached_through_proxy_jump_and_the_jump_host_by_password() -> None:
    config = ssh_config("device", JUMP).splitlines()
    device = config.index("Host device")
    assert config[device + 1] == "    ProxyJump jump@198.18.0.5:2222"
    jump = config.index("Host 198.18.0.5")
    assert config[jump + 1 : jump + 4] == [
        "    PreferredAuthentications password",
        "    PubkeyAuthentication no",
        "    NumberOfPasswordPrompts 1",
    ]
    # Both hops read the file (ProxyJump's ssh -W is given it too): host keys for both.
    assert config[config.index("Host *") :] == [
        "Host *",
        "    StrictHostKeyChecking no",
        "    UserKnownHostsFile /dev/null",
    ]
    assert "jump-secret" not in "\n".join(config)


def test_an_ipv6_jump_host_is_bracketed_in_proxy_jump() -> None:
    config = ssh_config("device", Target("fd00::5", 22, 443, "jump", "x"))
    assert "    ProxyJump jump@[fd00::5]:22\n" in config


@pytest.mark.parametrize(
    ("device", "jump"),
    [
        ("dev ice", JUMP),
        ('device"', JUMP),
        ("edge-*", JUMP),
        ("device", Target("jump host", 22, 443, "jump", "x")),
        ("device", Target("jumphost", 22, 443, "ju mp", "x")),
        ("device", Target("jumphost", 22, 443, "%u", "x")),
        ("device", Target("jumphost", 22, 443, "a@b", "x")),
    ],
)
def test_a_name_ssh_config_cannot_carry_literally_is_refused(device: str, jump: Target) -> None:
    with pytest.raises(ValueError, match="cannot be written in an ssh_config"):
        ssh_config(device, jump)


def test_the_device_and_the_jump_host_must_differ() -> None:
    with pytest.raises(ValueError, match="both"):
        ssh_config("198.18.0.5", JUMP)


def test_the_prompt_is_ssh_s_with_its_truncation() -> None:
    assert jump_prompt(JUMP) == "jump@198.18.0.5's password: "
    long = Target("h" * 200, 22, 443, "u" * 40, "x")
    assert jump_prompt(long) == f"{'u' * 30}@{'h' * 128}'s password: "


def _askpass(tmp_path: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    secret = tmp_path / "secret"
    secret.write_text("jump-secret\n")
    program = tmp_path / "askpass"
    program.write_text(askpass_script(jump_prompt(JUMP), str(secret)))
    program.chmod(0o700)
    return subprocess.run(
        [str(program), prompt],
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot open
    )


def test_askpass_answers_the_jump_host_s_prompt_only(tmp_path: Path) -> None:
    answered = _askpass(tmp_path, jump_prompt(JUMP))
    assert (answered.returncode, answered.stdout) == (0, "jump-secret\n")
    # Any other prompt (the device's) goes to the terminal, where scrapli answers it; with
    # no terminal it fails, and never with the jump host's password.
    other = _askpass(tmp_path, "labops@device's password: ")
    assert other.returncode != 0
    assert "jump-secret" not in other.stdout
    # A prompt that only starts like the jump host's is another.
    assert _askpass(tmp_path, jump_prompt(JUMP) + "x").returncode != 0


def test_the_jump_host_s_password_is_read_from_memory_while_the_session_lasts() -> None:
    with scrapli_jump._in_memory("jump-secret") as path:
        assert path.startswith(f"/proc/{os.getpid()}/fd/")
        assert Path(path).read_text() == "jump-secret\n"
    assert not Path(path).exists()


def test_ssh_s_environment_is_set_for_the_block_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSH_ASKPASS", "/usr/bin/before")
    monkeypatch.delenv("SSH_ASKPASS_REQUIRE", raising=False)
    variables = {"SSH_ASKPASS": "/tmp/x/askpass", "SSH_ASKPASS_REQUIRE": "force"}
    with scrapli_jump._environment(variables):
        assert {name: os.environ[name] for name in variables} == variables
    assert os.environ["SSH_ASKPASS"] == "/usr/bin/before"
    assert "SSH_ASKPASS_REQUIRE" not in os.environ


def test_the_session_s_files_are_private_and_gone_after(tmp_path: Path) -> None:
    target = Target("device", 22, 443, "labops", "device-secret", relay=RELAY)
    with scrapli_jump._jump_files(target) as (config, env):
        directory = config.parent
        assert oct(directory.stat().st_mode & 0o777) == "0o700"
        assert "ProxyJump jump@jumphost:22" in config.read_text()
        program = Path(env["SSH_ASKPASS"])
        assert env["SSH_ASKPASS_REQUIRE"] == "force"
        assert program.stat().st_mode & 0o777 == 0o700
        assert "jump-secret" not in program.read_text() + config.read_text()
    assert not directory.exists()
