"""One configuration store behind every transport: CLI -> NETCONF -> RESTCONF -> CLI and the HTTPS API."""

import time

from ncclient import manager
from netmiko import ConnectHandler

from conftest import HOST, HOSTNAME, PASSWORD, USERNAME
from test_https_tunnel import AUTH, http1, tls_context
from test_ssh_cli import paramiko_client

NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
GI2 = "/restconf/data/Cisco-IOS-XE-native:native/interface/GigabitEthernet=2"


def https(method, path, body=b"", headers=b""):
    resp, *_ = http1(tls_context(), method.encode() + b" " + path.encode() + b" HTTP/1.1\r\nHost: device\r\nAuthorization: " +
                     AUTH.encode() + b"\r\n" + headers + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    head, _, payload = resp.partition(b"\r\n\r\n")
    return head, payload


def test_config_crosses_every_transport():
    marker = f"x{int(time.time())}"
    # CLI (netmiko, interactive PTY) -> NETCONF and RESTCONF
    conn = ConnectHandler(device_type="cisco_ios", host=HOST, username=USERNAME, password=PASSWORD, fast_cli=False, conn_timeout=15)
    try:
        conn.send_config_set(["interface GigabitEthernet2", f"description cli-{marker}"])
    finally:
        conn.disconnect()
    with manager.connect(host=HOST, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                         look_for_keys=False, allow_agent=False, timeout=30) as m:
        running = m.get_config(source="running", filter=("subtree", f'<native xmlns="{NATIVE}"><interface/></native>')).data_xml
        assert f"cli-{marker}" in running
        head, payload = https("GET", GI2, headers=b"Accept: application/yang-data+json\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head
        assert f'"description":"cli-{marker}"'.encode() in payload, payload

        # NETCONF edit-config + commit -> CLI (SSH exec) and the HTTPS API
        with m.locked(target="candidate"):
            m.edit_config(target="candidate", config=f"""<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
                <native xmlns="{NATIVE}"><interface><GigabitEthernet><name>2</name><description>nc-{marker}</description>
                </GigabitEthernet></interface></native></config>""")
            m.commit()
    c = paramiko_client()
    try:
        _, stdout, _ = c.exec_command("show running-config")
        running = stdout.read().decode()
    finally:
        c.close()
    assert f"interface GigabitEthernet2\n description nc-{marker}\n" in running
    assert f"hostname {HOSTNAME}\n" in running
    head, payload = https("GET", "/admin/exec/show+running-config")
    assert head.startswith(b"HTTP/1.1 200") and f" description nc-{marker}\n".encode() in payload

    # HTTPS POST /admin/config -> RESTCONF
    head, payload = https("POST", "/admin/config", f"interface GigabitEthernet2\n description api-{marker}\n".encode(),
                          b"Content-Type: text/plain\r\n")
    assert head.startswith(b"HTTP/1.1 200"), payload
    head, payload = https("GET", GI2, headers=b"Accept: application/yang-data+xml\r\n")
    assert f"<description>api-{marker}</description>".encode() in payload


def test_netconf_lock_holds_off_the_cli():
    with manager.connect(host=HOST, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                         look_for_keys=False, allow_agent=False, timeout=30) as m:
        with m.locked(target="running"):
            c = paramiko_client()
            try:
                _, stdout, _ = c.exec_command("configure terminal\ninterface GigabitEthernet3\ndescription blocked")
                out = stdout.read().decode()
                assert "% Configuration is locked by a NETCONF session" in out
                assert stdout.channel.recv_exit_status() == 1
            finally:
                c.close()
