"""One device container, several emulated devices: every real client, and RESTCONF, sees each
device by its own address, with its own hostname and configuration, and a change on one device
is not seen on another (run.sh starts the fleet container with a netem sidecar, which puts the
addresses on the shared interface, as compose does)."""

import asyncio
import json
import ssl
import subprocess
import urllib.request
from base64 import b64encode

import asyncssh
import paramiko
import pytest
from lxml import etree
from ncclient import manager
from netmiko import ConnectHandler
from scrapli.driver.core import IOSXEDriver
from scrapli_netconf.driver import NetconfDriver

from conftest import FLEET, FLEET_HOST, PASSWORD, SSH_OPTS, USERNAME

NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
HOSTNAME_FILTER = f'<native xmlns="{NATIVE}"><hostname/></native>'


def https(address, path, method="GET", body=None):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    token = b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(
        f"https://{address}{path}", data=body, method=method,
        headers={"Authorization": f"Basic {token}", "Content-Type": "text/plain"})
    with urllib.request.urlopen(request, context=context, timeout=20) as response:
        return response.read().decode()


def test_the_device_lists_its_fleet():
    listing = json.loads(https(FLEET_HOST, "/admin/fleet"))
    assert [(d["index"], d["name"], d["address"]) for d in listing["devices"]] == [
        (index, name, address) for index, (name, address) in enumerate(FLEET, start=1)]
    assert listing["platform"] == "cisco_iosxe"


@pytest.mark.parametrize(("name", "address"), FLEET)
def test_openssh_exec_reaches_each_device(askpass_env, name, address):
    r = subprocess.run(["ssh", *SSH_OPTS, f"{USERNAME}@{address}", "show version"], env=askpass_env,
                       capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    assert f"{name} uptime is".encode() in r.stdout


def test_asyncssh_paramiko_and_scrapli_see_each_prompt():
    async def prompt(address):
        async with asyncssh.connect(address, username=USERNAME, password=PASSWORD, known_hosts=None) as conn:
            result = await conn.run("show running-config | include ^hostname", check=True)
            return result.stdout.strip()

    for name, address in FLEET:
        assert asyncio.run(prompt(address)) == f"hostname {name}"
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        client.connect(address, username=USERNAME, password=PASSWORD, look_for_keys=False, allow_agent=False)
        try:
            _, stdout, _ = client.exec_command("show version")
            assert f"{name} uptime is" in stdout.read().decode()
        finally:
            client.close()
        with IOSXEDriver(host=address, auth_username=USERNAME, auth_password=PASSWORD,
                         auth_strict_key=False, transport="system") as conn:
            assert conn.get_prompt() == f"{name}#"


def test_a_change_on_one_device_is_not_seen_on_another():
    (first, first_address), (second, second_address), *_ = FLEET
    device = {"device_type": "cisco_ios", "host": second_address, "username": USERNAME,
              "password": PASSWORD, "fast_cli": False}
    with ConnectHandler(**device) as conn:
        conn.send_config_set(["interface GigabitEthernet2", " description only-on-the-second"])
        assert "only-on-the-second" in conn.send_command("show running-config")
    try:
        assert "only-on-the-second" not in https(first_address, "/admin/exec/show+running-config")
        assert "only-on-the-second" in https(second_address, "/admin/exec/show+running-config")
        with manager.connect(host=first_address, port=830, username=USERNAME, password=PASSWORD,
                             hostkey_verify=False, look_for_keys=False, allow_agent=False) as nc:
            assert b"only-on-the-second" not in nc.get_config("running").xml.encode()
    finally:
        https(second_address, "/admin/config", method="POST",
              body=b"interface GigabitEthernet2\n no description\n")


def test_netconf_hostname_is_each_devices_own():
    for name, address in FLEET:
        with manager.connect(host=address, port=830, username=USERNAME, password=PASSWORD,
                             hostkey_verify=False, look_for_keys=False, allow_agent=False) as nc:
            reply = nc.get_config("running", filter=("subtree", HOSTNAME_FILTER))
            assert etree.fromstring(reply.xml.encode()).findtext(f".//{{{NATIVE}}}hostname") == name
    name, address = FLEET[-1]
    conn = NetconfDriver(host=address, auth_username=USERNAME, auth_password=PASSWORD,
                         auth_strict_key=False, port=830)
    conn.open()
    try:
        reply = conn.get_config(source="running", filter_=HOSTNAME_FILTER)
        assert f"<hostname>{name}</hostname>" in reply.result
    finally:
        conn.close()


def test_restconf_hostname_is_each_devices_own():
    for name, address in FLEET:
        data = json.loads(https(address, "/restconf/data/Cisco-IOS-XE-native:native/hostname"))
        assert data == {"Cisco-IOS-XE-native:hostname": name}, data
