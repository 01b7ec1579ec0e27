"""The libssh2 / libssh clients and scrapli's other transports, unmodified, against the device: ssh2-python,
parallel-ssh (native: libssh2; ssh: libssh), scrapli IOSXEDriver and scrapli-netconf NetconfDriver over the
system (OpenSSH), paramiko and ssh2 transports. Every one of them is a bench-runner client; a missing library
is an import error here, never a skip."""

import socket
import time

import gevent
import pytest
from pssh.clients.native import SSHClient as NativeSSHClient
from pssh.clients.ssh import SSHClient as LibsshSSHClient
from scrapli.driver.core import IOSXEDriver
from scrapli_netconf.driver import NetconfDriver
from ssh2.session import Session as Ssh2Session

from conftest import HOST, HOST10, HOSTNAME, HOSTNAME10, PASSWORD, USERNAME

TIMEOUT_S = 20
PAYLOAD = "urn:transport-lab:payload"
NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
BASE11 = "urn:ietf:params:netconf:base:1.1"


# --- ssh2-python (libssh2, blocking, on our own socket) -----------------------------------------------------


def ssh2_connect():
    sock = socket.create_connection((HOST, 22), timeout=TIMEOUT_S)
    session = Ssh2Session()
    session.set_timeout(TIMEOUT_S * 1000)
    session.handshake(sock)
    session.userauth_password(USERNAME, PASSWORD)
    assert session.userauth_authenticated()
    return sock, session


def ssh2_read_to_eof(channel):
    out = b""
    while True:
        size, data = channel.read()
        if size <= 0:
            return out.decode()
        out += data


def ssh2_exec(session, command):
    channel = session.open_session()
    channel.execute(command)
    out = ssh2_read_to_eof(channel)
    channel.close()
    channel.wait_closed()
    return channel.get_exit_status(), out


def test_ssh2_python_exec():
    sock, session = ssh2_connect()
    try:
        status, out = ssh2_exec(session, "show version")
        assert status == 0, out
        assert f"{HOSTNAME} uptime is" in out and "Cisco IOS XE Software" in out
        status, out = ssh2_exec(session, "show clock\nsh ip int br")
        assert status == 0 and "UTC" in out and "GigabitEthernet" in out
        status, out = ssh2_exec(session, "show bogus")
        assert status == 1 and "% Invalid input detected" in out
        # Several channels, one after another, on the one session.
        for _ in range(5):
            assert ssh2_exec(session, "show clock")[0] == 0
    finally:
        session.disconnect()
        sock.close()


def ssh2_read_until(channel, marker, deadline_s=TIMEOUT_S):
    buf, deadline = b"", time.monotonic() + deadline_s
    while marker not in buf:
        assert time.monotonic() < deadline, buf[-200:]
        size, data = channel.read()
        assert size > 0, (size, buf[-200:])
        buf += data
    return buf.decode()


def test_ssh2_python_pty_prompt():
    sock, session = ssh2_connect()
    try:
        channel = session.open_session()
        channel.pty("vt100")
        channel.shell()
        prompt = f"{HOSTNAME}#".encode()
        assert ssh2_read_until(channel, prompt).rstrip().endswith(f"{HOSTNAME}#")
        channel.write(b"terminal length 0\n")
        ssh2_read_until(channel, b"\r\n" + prompt)
        channel.write(b"show version\n")
        out = ssh2_read_until(channel, b"\r\n" + prompt)
        assert out.startswith("show version\r\n"), out[:80]  # the echo
        assert "Cisco IOS XE Software" in out and f"{HOSTNAME} uptime is" in out
        channel.write(b"exit\n")
        ssh2_read_to_eof(channel)
        channel.close()
        channel.wait_closed()
        assert channel.eof()
    finally:
        session.disconnect()
        sock.close()


# --- parallel-ssh: native (libssh2) and ssh (libssh) single-host clients ------------------------------------


def pssh_run(client, command):
    """run_command, the output to its end, wait_finished, the exit code.

    The device's sshd can send the channel's EOF before the command's exit-status, and each client reads
    the status once it has the EOF: the native (libssh2) one reports 0 until the status has arrived, so it is read after
    wait_finished (which closes the channel, and libssh2 waits for the device's close, which follows the
    status); the libssh one reports -1 until then and does not wait for the close, so its session is polled
    until the status is there (what pssh.clients.ssh leaves to its caller), then the channel is closed."""
    output = client.run_command(command, timeout=TIMEOUT_S)
    text = "\n".join(output.stdout)
    if isinstance(client, LibsshSSHClient):
        deadline = time.monotonic() + TIMEOUT_S
        while output.exit_code in (None, -1) and time.monotonic() < deadline:
            client.poll()
            gevent.sleep(0.001)
    client.wait_finished(output, timeout=TIMEOUT_S)
    return output.exit_code, text


@pytest.mark.parametrize("factory", [NativeSSHClient, LibsshSSHClient], ids=["native-libssh2", "ssh-libssh"])
def test_parallel_ssh_exec(factory):
    # The context manager disconnects at its end (disconnect() is a deprecated no-op).
    with factory(HOST, user=USERNAME, password=PASSWORD, port=22, num_retries=1, allow_agent=False,
                 identity_auth=False, timeout=TIMEOUT_S) as client:
        code, text = pssh_run(client, "show version")
        assert code == 0, text
        assert f"{HOSTNAME} uptime is" in text and "Cisco IOS XE Software" in text
        code, text = pssh_run(client, "show clock\nshow ip interface brief")
        assert code == 0 and "UTC" in text and "GigabitEthernet" in text
        for _ in range(5):  # a new channel per command on the kept session, failing and succeeding
            code, text = pssh_run(client, "show bogus")
            assert code == 1 and "% Invalid input detected" in text
            assert pssh_run(client, "show clock")[0] == 0


# --- scrapli IOSXEDriver over its synchronous transports ----------------------------------------------------


@pytest.mark.parametrize("transport", ["system", "paramiko", "ssh2"])
def test_scrapli_iosxe_transports(transport):
    with IOSXEDriver(host=HOST, auth_username=USERNAME, auth_password=PASSWORD, auth_strict_key=False,
                     ssh_config_file=False, transport=transport, timeout_socket=TIMEOUT_S,
                     timeout_transport=TIMEOUT_S, timeout_ops=TIMEOUT_S) as conn:
        assert conn.get_prompt() == f"{HOSTNAME}#"
        r = conn.send_command("show version")
        assert not r.failed and "Cisco IOS XE Software" in r.result and f"{HOSTNAME} uptime is" in r.result
        r = conn.send_command("show running-config | include ^hostname")
        assert not r.failed
        assert r.result.strip() == f"hostname {HOSTNAME}", r.result
        r = conn.send_command("show version | include uptime")
        assert not r.failed and r.result.strip().startswith(f"{HOSTNAME} uptime is"), r.result
        assert "Cisco IOS XE Software" not in r.result
        assert conn.send_command("show nonsense").failed


# --- scrapli-netconf NetconfDriver over its synchronous transports ------------------------------------------


@pytest.mark.parametrize("transport", ["system", "paramiko", "ssh2"])
@pytest.mark.parametrize("host,hostname,version", [(HOST, HOSTNAME, "1.1"), (HOST10, HOSTNAME10, "1.0")],
                         ids=["base1.1-chunked", "device-1.0-only"])
def test_scrapli_netconf_transports(transport, host, hostname, version):
    conn = NetconfDriver(host=host, port=830, auth_username=USERNAME, auth_password=PASSWORD, auth_strict_key=False,
                         ssh_config_file=False, transport=transport, timeout_socket=TIMEOUT_S,
                         timeout_transport=TIMEOUT_S, timeout_ops=TIMEOUT_S)
    conn.open()
    try:
        # No preference given: the framing is what the device offers (chunked with base:1.1, else EOM).
        assert conn.netconf_version.value == version
        assert (BASE11 in conn.server_capabilities) == (version == "1.1")
        r = conn.get_config(source="running", filter_=f'<native xmlns="{NATIVE}"><hostname/></native>',
                            filter_type="subtree")
        assert not r.failed, r.result
        assert f"<hostname>{hostname}</hostname>" in r.result
        assert "<interface>" not in r.result  # the filter selected the hostname only
        for size in (1024, 100 * 1024):  # one chunk / end-of-message frame, and many
            r = conn.get(filter_=f'<payload xmlns="{PAYLOAD}"><size>{size}</size></payload>', filter_type="subtree")
            assert not r.failed and abs(len(r.result) - size) < 400, (size, len(r.result))
    finally:
        conn.close()
