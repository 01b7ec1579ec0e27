"""The device people script against: output modifiers on every CLI transport, over-long exec commands, and
interface state (CLI show output and NETCONF <get>) from the one configuration store, on both platforms."""

import base64
import re
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import paramiko
import pytest
from lxml import etree
from ncclient import manager
from netmiko import ConnectHandler

from conftest import HOST, HOST10, HOSTNAME, HOSTNAME10, PASSWORD, PLATFORM10, SSH_OPTS, USERNAME

IETF_IF = "urn:ietf:params:xml:ns:yang:ietf-interfaces"
DEVICES = [(HOST, HOSTNAME, "cisco_iosxe"), (HOST10, HOSTNAME10, PLATFORM10)]
IDS = ["cisco_iosxe", PLATFORM10]


def ssh_exec(env, host, command, timeout=30):
    return subprocess.run(["ssh", *SSH_OPTS, f"{USERNAME}@{host}", command], env=env, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def ssh_exec_long(env, host, command, tmp_path):
    """A command too long for any argv (the local kernel limits one argument to 128 KiB, as the device's
    does) reaches OpenSSH through RemoteCommand in a configuration file."""
    config = tmp_path / "ssh_config"
    config.write_text(f"Host *\n  RemoteCommand {command}\n")
    return subprocess.run(["ssh", "-F", str(config), *SSH_OPTS, f"{USERNAME}@{host}"], env=env, capture_output=True,
                          timeout=30, stdin=subprocess.DEVNULL)


def api_exec(host, *commands):
    """GET /admin/exec/... with one command per path segment; returns (status, body)."""
    path = "/admin/exec/" + "/".join(urllib.parse.quote(c, safe="") for c in commands)
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    auth = base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
    req = urllib.request.Request(f"https://{host}{path}", headers={"Authorization": "Basic " + auth})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=15) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.mark.parametrize("host,hostname,platform", DEVICES, ids=IDS)
def test_modifiers_over_openssh_exec(askpass_env, host, hostname, platform):
    r = ssh_exec(askpass_env, host, "show running-config | include ^hostname")
    assert r.returncode == 0 and r.stdout == f"hostname {hostname}\n".encode(), r
    r = ssh_exec(askpass_env, host, "sh ver | i Cisco")
    assert r.returncode == 0, r
    if platform == "cisco_iosxe":
        assert r.stdout.startswith(b"Cisco IOS XE Software, Version") and all(b"Cisco" in l for l in r.stdout.splitlines())
        count = ssh_exec(askpass_env, host, "show running-config | count ^interface")
        assert re.fullmatch(rb"Number of lines which match regexp = ([5-9]|\d\d+)\n", count.stdout), count
        # One pipe on IOS: the rest of the line is the expression ("^hostname " or " include x").
        one = ssh_exec(askpass_env, host, "show running-config | include ^hostname | include x")
        assert one.stdout == f"hostname {hostname}\n".encode(), one
        bad = ssh_exec(askpass_env, host, "show version | include (")
        assert bad.returncode == 1 and b"% Invalid input detected at '^' marker." in bad.stdout, bad
        sec = ssh_exec(askpass_env, host, "show running-config | sec ^interface Loopback0")
        assert sec.stdout.decode().startswith("interface Loopback0\n description Router ID\n"), sec
    else:
        assert r.stdout == b""
        chained = ssh_exec(askpass_env, host, "show running-config | section Ethernet1 | include description")
        assert chained.stdout == b" description uplink to core\n", chained
        count = ssh_exec(askpass_env, host, "show running-config | count")
        assert count.returncode == 1 and count.stdout == b"% Invalid input (at token 3: 'count')\n", count
        bad = ssh_exec(askpass_env, host, "show version | include (")
        assert bad.returncode == 1 and bad.stdout == b"% Invalid input (at token 4: '(')\n", bad
        ex = ssh_exec(askpass_env, host, "show ip interface brief | exclude ^Interface | be Loopback")
        assert ex.stdout.decode().startswith("Loopback0 "), ex
    be = ssh_exec(askpass_env, host, "show ip interface brief | be ^Loopback")
    assert be.stdout.decode().startswith("Loopback0 "), be


@pytest.mark.parametrize("host,hostname,platform", DEVICES, ids=IDS)
def test_modifiers_over_netmiko_pty(host, hostname, platform):
    conn = ConnectHandler(device_type="arista_eos" if platform == "arista_eos" else "cisco_ios", host=host,
                          username=USERNAME, password=PASSWORD, conn_timeout=15)
    try:
        assert conn.send_command("show running-config | include ^hostname").strip() == f"hostname {hostname}"
        assert conn.send_command("show ip interface brief | include ^Loopback0").startswith("Loopback0")
    finally:
        conn.disconnect()


@pytest.mark.parametrize("host,hostname,platform", DEVICES, ids=IDS)
def test_paging_counts_filtered_lines(host, hostname, platform):
    """A PTY pages at 24 lines: "show interfaces" stops at --More--, its few "packets input" lines do not."""
    c = paramiko.SSHClient()
    c.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    c.connect(host, username=USERNAME, password=PASSWORD, look_for_keys=False, allow_agent=False, timeout=15)
    try:
        chan = c.invoke_shell(width=200, height=50)
        chan.settimeout(10)

        def read_until(*marks):
            out = ""
            while not any(out.endswith(m) for m in marks):
                out += chan.recv(65536).decode()
            return out

        read_until(f"{hostname}#")
        chan.send("show interfaces | include packets input\r")
        filtered = read_until(f"{hostname}#")
        assert "--More--" not in filtered
        assert 4 <= len(re.findall(r"packets input", filtered)) < 20, filtered
        chan.send("show interfaces\r")
        assert read_until(" --More-- ").count("\n") <= 25
        chan.send("q")
        read_until(f"{hostname}#")
    finally:
        c.close()


@pytest.mark.parametrize("host,hostname,platform", DEVICES, ids=IDS)
def test_modifiers_over_https_api(host, hostname, platform):
    assert api_exec(host, "show running-config | include ^hostname") == (200, f"hostname {hostname}\n")
    status, body = api_exec(host, "show version | include Cisco")
    assert status == 200 and (("Cisco IOS XE Software" in body) == (platform == "cisco_iosxe"))
    status, body = api_exec(host, "show version | include [")
    assert status == 400 and "% Invalid input" in body


@pytest.mark.parametrize("host,hostname,platform", DEVICES, ids=IDS)
def test_overlong_exec_command(askpass_env, host, hostname, platform, tmp_path):
    # Under the kernel's 128 KiB limit for one argument: the device's own error.
    r = ssh_exec_long(askpass_env, host, "show version | include " + "x" * (100 * 1024), tmp_path)
    assert r.returncode == 1 and r.stdout == b"% Command line too long (102423 bytes; the limit is 4096)\n", r
    # Over it, sshd cannot start the shell at all (execve fails with E2BIG): sshd's child reports it.
    r = ssh_exec_long(askpass_env, host, "show version | include " + "x" * (200 * 1024), tmp_path)
    assert r.returncode != 0 and b"Argument list too long" in r.stderr, r
    # The device is unharmed: new sessions work.
    r = ssh_exec(askpass_env, host, "show running-config | include ^hostname")
    assert r.returncode == 0 and r.stdout == f"hostname {hostname}\n".encode(), r


def nc_connect(host):
    return manager.connect(host=host, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                           look_for_keys=False, allow_agent=False, timeout=30)


def octets(data, name):
    ns = {"if": IETF_IF}
    values = data.xpath(f"//if:interfaces-state/if:interface[if:name='{name}']/if:statistics/if:in-octets/text()",
                        namespaces=ns)
    assert len(values) == 1, etree.tostring(data)
    return int(values[0])


def test_ncclient_get_returns_interface_state():
    with nc_connect(HOST) as m:
        full = etree.fromstring(m.get().data_xml.encode())
        ns = {"if": IETF_IF}
        names = full.xpath("//if:interfaces-state/if:interface/if:name/text()", namespaces=ns)
        assert {"GigabitEthernet1", "GigabitEthernet2", "GigabitEthernet3", "Loopback0", "VirtualPortGroup0"} <= set(names)
        assert full.xpath("//if:interface[if:name='GigabitEthernet1']/if:oper-status/text()", namespaces=ns) == ["up"]
        assert full.xpath("//*[local-name()='native']"), "get returns the configuration too"
        config = m.get_config(source="running").data_xml
        assert "interfaces-state" not in config
        flt = f'<interfaces-state xmlns="{IETF_IF}"><interface><name>GigabitEthernet1</name></interface></interfaces-state>'
        first = etree.fromstring(m.get(filter=("subtree", flt)).data_xml.encode())
        assert first.xpath("//if:interface/if:name/text()", namespaces=ns) == ["GigabitEthernet1"]
        assert not first.xpath("//*[local-name()='native']")
        assert first.xpath("//*[local-name()='ip']/text()") == ["198.18.0.2"]
        time.sleep(2.1)
        second = etree.fromstring(m.get(filter=("subtree", flt)).data_xml.encode())
        assert octets(second, "GigabitEthernet1") > octets(first, "GigabitEthernet1") > 0


@pytest.mark.skipif(PLATFORM10 != "arista_eos", reason="second device is not arista_eos")
def test_eos_interfaces_come_from_the_store():
    marker = f"cli-state-{int(time.time())}"
    conn = ConnectHandler(device_type="arista_eos", host=HOST10, username=USERNAME, password=PASSWORD, conn_timeout=15)
    try:
        conn.send_config_set(["interface Ethernet9", f"description {marker}", "ip address 198.51.100.9/24"])
        shown = conn.send_command("show interfaces | section ^Ethernet9")
        assert shown.startswith("Ethernet9 is up, line protocol is up (connected)") and f"Description: {marker}" in shown
        brief = conn.send_command("show ip interface brief | include Ethernet9")
        assert brief.split()[:4] == ["Ethernet9", "198.51.100.9/24", "up", "up"]
        with nc_connect(HOST10) as m:
            flt = f'<interfaces-state xmlns="{IETF_IF}"><interface><name>Ethernet9</name></interface></interfaces-state>'
            state = m.get(filter=("subtree", flt)).data_xml
            assert "<oper-status>up</oper-status>" in state and "198.51.100.9" in state
    finally:
        conn.send_config_set(["no interface Ethernet9"])
        conn.disconnect()
