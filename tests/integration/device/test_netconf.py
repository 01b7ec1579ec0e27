"""NETCONF on port 830 with ncclient and scrapli-netconf, both framings, plus raw protocol checks."""

import threading
import time

import paramiko
import pytest
from lxml import etree
from ncclient import manager
from ncclient.operations import RPCError
from scrapli_netconf.driver import NetconfDriver

from conftest import HOST, HOST10, HOSTNAME, HOSTNAME10, PASSWORD, USERNAME

BASE11 = "urn:ietf:params:netconf:base:1.1"
NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
PAYLOAD = "urn:transport-lab:payload"


def nc_connect(host):
    return manager.connect(host=host, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                           look_for_keys=False, allow_agent=False, timeout=30)


@pytest.fixture(scope="module", autouse=True)
def restore_hostnames():
    """The datastore is the device's one configuration: a hostname committed here renames the CLI prompt,
    so put the original names back (through candidate and commit, keeping both datastores equal)."""
    yield
    for host, name in ((HOST, HOSTNAME), (HOST10, HOSTNAME10)):
        with nc_connect(host) as m:
            m.discard_changes()
            m.edit_config(target="candidate", config=f"""<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
                <native xmlns="{NATIVE}"><hostname>{name}</hostname></native></config>""")
            m.commit()


@pytest.mark.parametrize("host,base11", [(HOST, True), (HOST10, False)], ids=["base1.1-chunked", "base1.0-eom"])
def test_ncclient(host, base11):
    with nc_connect(host) as m:
        assert (BASE11 in m.server_capabilities) == base11
        assert m.session_id
        running = m.get_config(source="running").data_xml
        assert "<hostname>" in running
        with m.locked(target="candidate"):
            m.edit_config(target="candidate", config=f"""<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
                <native xmlns="{NATIVE}"><hostname>nc-{host}</hostname></native></config>""")
            assert f"nc-{host}" in m.get_config(source="candidate").data_xml
            assert f"nc-{host}" not in m.get_config(source="running").data_xml
            m.commit()
        assert f"nc-{host}" in m.get_config(source="running", filter=("subtree", f'<native xmlns="{NATIVE}"><hostname/></native>')).data_xml
        m.edit_config(target="candidate", config=f"""<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
            <native xmlns="{NATIVE}"><hostname>discarded</hostname></native></config>""")
        m.discard_changes()
        assert "discarded" not in m.get_config(source="candidate").data_xml
        m.edit_config(target="running", default_operation="merge", config=f"""<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
            <native xmlns="{NATIVE}"><interface><GigabitEthernet><name>2</name><description>via running</description></GigabitEthernet></interface></native></config>""")
        assert "via running" in m.get().data_xml
        for size in (1024, 10 * 1024, 100 * 1024, 1024 * 1024):
            reply = m.get(filter=("subtree", f'<payload xmlns="{PAYLOAD}"><size>{size}</size></payload>'))
            assert abs(len(reply.xml.encode()) - size) < 200, (size, len(reply.xml))
        with pytest.raises(RPCError) as err:
            m.dispatch(etree.fromstring('<kill-session xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><session-id>999</session-id></kill-session>'))
        assert err.value.tag == "operation-not-supported"


@pytest.mark.parametrize("host,version", [(HOST, "1.1"), (HOST, "1.0"), (HOST10, "1.0")],
                         ids=["base1.1-chunked", "base1.0-eom", "device-1.0-only"])
def test_scrapli_netconf(host, version):
    conn = NetconfDriver(host=host, port=830, auth_username=USERNAME, auth_password=PASSWORD, auth_strict_key=False,
                         preferred_netconf_version=version, timeout_ops=30)
    conn.open()
    try:
        assert conn.netconf_version.value == version
        r = conn.get_config(source="running")
        assert not r.failed and "<hostname>" in r.result
        r = conn.lock(target="candidate")
        assert not r.failed, r.result
        r = conn.edit_config(config=f'<config><native xmlns="{NATIVE}"><hostname>scrapli-{version}</hostname></native></config>',
                             target="candidate")
        assert not r.failed, r.result
        assert not conn.commit().failed
        assert not conn.unlock(target="candidate").failed
        assert f"scrapli-{version}" in conn.get_config(source="running").result
        assert not conn.discard().failed
        r = conn.get(filter_=f'<payload xmlns="{PAYLOAD}"><size>102400</size></payload>')
        assert not r.failed and len(r.result) > 100000
        r = conn.rpc(filter_='<kill-session><session-id>9</session-id></kill-session>')
        assert r.failed or "operation-not-supported" in r.result
    finally:
        conn.close()


HELLO11 = (b'<?xml version="1.0"?><hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities>'
           b'<capability>urn:ietf:params:netconf:base:1.1</capability></capabilities></hello>]]>]]>')


def raw_subsystem():
    c = paramiko.SSHClient()
    c.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    c.connect(HOST, port=830, username=USERNAME, password=PASSWORD, look_for_keys=False, allow_agent=False, timeout=10)
    chan = c.get_transport().open_session()
    chan.settimeout(15)
    chan.invoke_subsystem("netconf")
    buf = b""
    while b"]]>]]>" not in buf:
        buf += chan.recv(65536)
    return c, chan


def chunk(msg: bytes) -> bytes:
    return b"\n#%d\n%s\n##\n" % (len(msg), msg)


def test_pipelined_rpcs_answered_in_order():
    c, chan = raw_subsystem()
    try:
        batch = HELLO11 + b"".join(chunk(
            b'<rpc message-id="%d" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><get-config><source><running/></source></get-config></rpc>' % i)
            for i in range(10))
        chan.sendall(batch)
        buf = b""
        while buf.count(b"\n##\n") < 10:
            data = chan.recv(65536)
            assert data, buf
            buf += data
        ids = [int(x) for x in __import__("re").findall(rb'message-id="(\d+)"', buf)]
        assert ids == list(range(10))
    finally:
        c.close()


def test_malformed_session_closed_others_keep_working():
    with nc_connect(HOST) as healthy:
        stop, errors = threading.Event(), []

        def keep_busy():
            while not stop.is_set():
                try:
                    healthy.get_config(source="running")
                except Exception as e:  # noqa: BLE001 - any failure of the healthy session fails the test
                    errors.append(e)
                    return
                time.sleep(0.01)

        t = threading.Thread(target=keep_busy)
        t.start()
        try:
            c, chan = raw_subsystem()
            try:
                chan.sendall(HELLO11 + b"this is not a chunk header\n")
                got = b""
                while True:
                    data = chan.recv(65536)
                    if not data:
                        break
                    got += data
                assert chan.exit_status_ready() or chan.closed or got == b""
            finally:
                c.close()
            c, chan = raw_subsystem()
            try:
                chan.sendall(HELLO11 + chunk(b"<rpc message-id='1' xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'><get>"))
                reply = b""
                while b"\n##\n" not in reply:
                    reply += chan.recv(65536)
                assert b"malformed-message" in reply
            finally:
                c.close()
        finally:
            stop.set()
            t.join()
        assert not errors
        assert "<hostname>" in healthy.get_config(source="running").data_xml
