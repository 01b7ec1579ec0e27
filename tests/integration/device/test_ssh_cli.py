"""SSH CLI with unmodified real clients: OpenSSH, asyncssh, paramiko, netmiko, scrapli."""

import asyncio
import subprocess
import time

import asyncssh
import paramiko
from netmiko import ConnectHandler
from scrapli.driver.core import IOSXEDriver

from conftest import HOST, HOSTNAME, PASSWORD, SSH_OPTS, USERNAME


def openssh(env, *args, stdin=None, timeout=30):
    return subprocess.run(["ssh", *SSH_OPTS, f"{USERNAME}@{HOST}", *args], env=env, input=stdin,
                          capture_output=True, timeout=timeout, stdin=None if stdin is not None else subprocess.DEVNULL)


def test_openssh_exec(askpass_env):
    r = openssh(askpass_env, "show version")
    assert r.returncode == 0, r.stderr
    assert f"{HOSTNAME} uptime is".encode() in r.stdout
    batch = openssh(askpass_env, "show clock\nsh ip int br")
    assert batch.returncode == 0
    assert b"UTC" in batch.stdout and b"GigabitEthernet" in batch.stdout
    bad = openssh(askpass_env, "show clock\nshow bogus")
    assert bad.returncode == 1
    assert b"% Invalid input detected at '^' marker." in bad.stdout


def test_openssh_tty_shell(askpass_env):
    r = openssh(askpass_env, "-tt", stdin=b"terminal length 0\nshow clock\nexit\n")
    out = r.stdout.decode()
    assert f"{HOSTNAME}#show clock\r\n" in out, out
    assert "UTC" in out


def test_asyncssh_exec_and_shell():
    async def main():
        async with asyncssh.connect(HOST, username=USERNAME, password=PASSWORD, known_hosts=None,
                                    client_keys=None) as conn:
            r = await conn.run("show inventory", check=False)
            assert r.exit_status == 0 and "PID:" in r.stdout
            proc = await conn.create_process(term_type="vt100", term_size=(200, 50))
            out = await asyncio.wait_for(proc.stdout.readuntil("#"), 10)
            assert out.endswith(f"{HOSTNAME}#")
            proc.stdin.write("terminal length 0\n")
            await asyncio.wait_for(proc.stdout.readuntil(f"\r\n{HOSTNAME}#"), 10)
            proc.stdin.write("sh ver\n")
            out = await asyncio.wait_for(proc.stdout.readuntil(f"\r\n{HOSTNAME}#"), 10)
            assert "Cisco IOS XE Software" in out
            proc.stdin.write("exit\n")
            await asyncio.wait_for(proc.wait_closed(), 10)
    asyncio.run(main())


def paramiko_client():
    c = paramiko.SSHClient()
    c.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    c.connect(HOST, username=USERNAME, password=PASSWORD, look_for_keys=False, allow_agent=False, timeout=10)
    return c


def read_until(chan, marker, timeout=10):
    buf, deadline = b"", time.monotonic() + timeout
    while marker not in buf:
        assert time.monotonic() < deadline, buf
        if chan.recv_ready():
            buf += chan.recv(65536)
        else:
            time.sleep(0.01)
    return buf.decode()


def test_paramiko_exec_command_and_invoke_shell():
    c = paramiko_client()
    try:
        _, stdout, _ = c.exec_command("show clock")
        assert "UTC" in stdout.read().decode()
        assert stdout.channel.recv_exit_status() == 0
        chan = c.invoke_shell(width=200, height=50)
        read_until(chan, f"{HOSTNAME}#".encode())
        chan.send("terminal length 0\n")
        read_until(chan, f"\r\n{HOSTNAME}#".encode())
        chan.send("show ip interface brief\n")
        out = read_until(chan, f"\r\n{HOSTNAME}#".encode())
        assert "GigabitEthernet1" in out
        chan.send("shw\n")
        assert "% Invalid input" in read_until(chan, b"marker.")
    finally:
        c.close()


def test_netmiko_cisco_ios():
    conn = ConnectHandler(device_type="cisco_ios", host=HOST, username=USERNAME, password=PASSWORD,
                          fast_cli=False, conn_timeout=15)
    try:
        assert conn.find_prompt() == f"{HOSTNAME}#"
        assert "Cisco IOS XE Software" in conn.send_command("show version")
        conn.send_config_set(["interface Loopback77", "description set by netmiko"])
        running = conn.send_command("show running-config")
        assert "interface Loopback77" in running and " description set by netmiko" in running
    finally:
        conn.disconnect()


def test_scrapli_iosxe():
    with IOSXEDriver(host=HOST, auth_username=USERNAME, auth_password=PASSWORD, auth_strict_key=False,
                     timeout_socket=15, timeout_ops=20) as conn:
        r = conn.send_command("show version")
        assert not r.failed and "Cisco IOS XE Software" in r.result
        cfg = conn.send_configs(["interface Loopback88", "description set by scrapli"])
        assert not cfg.failed
        running = conn.send_command("show running-config").result
        assert "interface Loopback88" in running
        assert conn.get_prompt() == f"{HOSTNAME}#"
        assert conn.send_command("show nonsense").failed


def test_large_outputs_over_exec():
    c = paramiko_client()
    try:
        for command, check in (("show tech-support", lambda n: n >= 1 << 20), ("show payload 10485760", lambda n: n == 10485760)):
            _, stdout, _ = c.exec_command(command)
            size = 0
            while chunk := stdout.channel.recv(1 << 20):
                size += len(chunk)
            assert check(size), (command, size)
            assert stdout.channel.recv_exit_status() == 0
    finally:
        c.close()


def test_paging_more_prompt():
    """With terminal length > 0 long output stops at --More--; space pages, q quits."""
    c = paramiko_client()
    try:
        chan = c.invoke_shell(width=200, height=50)
        read_until(chan, f"{HOSTNAME}#".encode())
        chan.send("terminal length 10\nshow running-config\n")
        first = read_until(chan, b"--More--")
        assert first.count("\r\n") <= 14
        chan.send(" ")
        read_until(chan, b"--More--")
        chan.send("q")
        # The --More-- prompt is erased and the device prompt takes its place.
        assert read_until(chan, f"{HOSTNAME}#".encode()).endswith(f"          \b\b\b\b\b\b\b\b\b\b{HOSTNAME}#")
        chan.send("show clock\n")
        assert "UTC" in read_until(chan, f"\r\n{HOSTNAME}#".encode())
    finally:
        c.close()
