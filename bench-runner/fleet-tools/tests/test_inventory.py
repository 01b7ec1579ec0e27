"""The job's devices as each tool's inventory: addresses, ports, platforms, no secret."""

import json
from typing import Any

from fleet_tools.inventory import ANSIBLE_GROUP, ansible_inventory, nornir_hosts
from fleet_tools.protocol import parse_job


def test_nornir_hosts_carry_each_plugin_options(job_document: dict[str, Any]) -> None:
    hosts = nornir_hosts(parse_job(job_document | {"timeout_s": 12}))
    assert list(hosts) == ["lab-r1", "lab-r2", "lab-r3"]
    r1 = hosts["lab-r1"]
    assert (r1["hostname"], r1["port"], r1["platform"]) == ("198.18.130.129", 22, "cisco_ios")
    options = r1["connection_options"]
    assert options["netmiko"]["platform"] == "cisco_ios"
    assert options["netmiko"]["extras"]["conn_timeout"] == 12
    assert options["scrapli"]["platform"] == "cisco_iosxe"
    assert options["scrapli"]["extras"]["transport"] == "system"
    assert options["scrapli"]["extras"]["timeout_ops"] == 12
    assert options["ncclient"]["port"] == 830


def _ansible(job_document: dict[str, Any], **change: Any) -> dict[str, Any]:
    document = job_document | {"tool": "ansible"} | change
    return ansible_inventory(parse_job(document))["all"]["children"][ANSIBLE_GROUP]


def test_network_cli_inventory(job_document: dict[str, Any]) -> None:
    group = _ansible(job_document, connection="network_cli", ssh_type="paramiko")
    assert group["vars"]["ansible_connection"] == "ansible.netcommon.network_cli"
    assert group["vars"]["ansible_network_cli_ssh_type"] == "paramiko"
    assert group["hosts"]["lab-r2"] == {
        "ansible_host": "198.18.130.130",
        "ansible_network_os": "cisco.ios.ios",
        "lab_https_port": 443,
        "ansible_port": 22,
    }


def test_netconf_and_uri_inventories(job_document: dict[str, Any]) -> None:
    netconf = _ansible(job_document, connection="netconf", operation="netconf_get")
    assert netconf["vars"]["ansible_connection"] == "ansible.netcommon.netconf"
    assert netconf["hosts"]["lab-r1"]["ansible_port"] == 830
    uri = _ansible(job_document, connection="uri", operation="api_get")
    assert uri["vars"]["ansible_connection"] == "local"
    assert "ansible_port" not in uri["hosts"]["lab-r1"]


def test_the_inventory_names_the_credentials_never_holds_them(
    job_document: dict[str, Any],
) -> None:
    group = _ansible(job_document, connection="network_cli")
    assert group["vars"]["ansible_user"] == "{{ fleet_username }}"
    assert group["vars"]["ansible_password"] == "{{ fleet_password }}"
    text = json.dumps(nornir_hosts(parse_job(job_document)))
    assert "password" not in text
    assert "username" not in text
