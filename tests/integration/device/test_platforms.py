"""The second platform (DEVICE10_PLATFORM, arista_eos) with the clients' own drivers for it."""

import pytest
from netmiko import ConnectHandler
from scrapli.driver.core import EOSDriver

from conftest import HOST10, HOSTNAME10, PASSWORD, PLATFORM10, USERNAME

pytestmark = pytest.mark.skipif(PLATFORM10 != "arista_eos", reason="second device is not arista_eos")


def test_netmiko_arista_eos():
    conn = ConnectHandler(device_type="arista_eos", host=HOST10, username=USERNAME, password=PASSWORD, conn_timeout=15)
    try:
        assert conn.find_prompt() == f"{HOSTNAME10}#"
        assert "Arista vEOS-lab" in conn.send_command("show version")
        assert "% Invalid input (at token 1: 'bogus')" in conn.send_command("show bogus")
        conn.send_config_set(["interface Ethernet7", "description set by netmiko"])
        running = conn.send_command("show running-config")
        assert "interface Ethernet7" in running and "description set by netmiko" in running
    finally:
        conn.disconnect()


def test_scrapli_eos():
    with EOSDriver(host=HOST10, auth_username=USERNAME, auth_password=PASSWORD, auth_strict_key=False,
                   timeout_socket=15, timeout_ops=20) as conn:
        r = conn.send_command("show ip interface brief")
        assert not r.failed and "Ethernet1" in r.result
        assert not conn.send_configs(["interface Ethernet8", "description set by scrapli"]).failed
        assert "interface Ethernet8" in conn.send_command("show running-config").result
        assert conn.send_command("show bogus").failed
