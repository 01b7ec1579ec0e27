"""gNMI on TCP 9339, served by the device daemon with grpc-go (docs/device.md, gNMI): pygnmi and
openconfig's gnmi_cli ask Capabilities, Get and Set the OpenConfig view of the one configuration
store that SSH, NETCONF and RESTCONF share, and Subscribe ONCE, POLL and STREAM (ON_CHANGE sees a
change made over SSH, stamped with its commit time); every device of a fleet answers for itself;
unknown and malformed paths, an oversize Set and a bad password get their gRPC status codes;
/version, /admin/fleet and the metrics name and count the server."""

import json
import os
import re
import subprocess
import time
import urllib.request

import grpc
import pytest
from ncclient import manager
from netmiko import ConnectHandler
from pygnmi.client import gNMIclient, gNMIException

from conftest import FLEET, FLEET_HOST, HOST, HOSTNAME, PASSWORD, USERNAME
from test_http3 import https, metric

PORT = 9339
# The versions emulator/go.mod pins (run.sh reads them there).
GNMI_VERSION = os.environ.get("GNMI_VERSION", "")
GRPC_VERSION = os.environ.get("GRPC_VERSION", "")
NATIVE = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
# The interface these tests create and remove, so that no other test's interface changes.
LOOPBACK = "Loopback126"
CONFIG = f"/interfaces/interface[name={LOOPBACK}]/config"


def client(host=HOST, password=PASSWORD):
    """A pygnmi client that takes the device's self-signed certificate as it comes (as lab clients do)."""
    return gNMIclient(target=(host, PORT), username=USERNAME, password=password, skip_verify=True, gnmi_timeout=20)


def code_of(excinfo):
    """The gRPC status code behind a pygnmi error."""
    error = excinfo.value.orig_exc
    assert isinstance(error, grpc.RpcError), excinfo.value
    return error.code()


def leaf(get_response):
    """The one value a Get of one leaf answers."""
    [notification] = get_response["notification"]
    [update] = notification["update"]
    return update["val"]


def gnmi_cli(*args, host=HOST, check=True):
    """gnmi_cli's exit status and output (it prints its errors there too); the account goes in the
    environment, where gnmi_cli -with_user_pass reads it."""
    env = dict(os.environ, GNMI_USER=USERNAME, GNMI_PASS=PASSWORD)
    r = subprocess.run(["gnmi_cli", "-address", f"{host}:{PORT}", "-tls_skip_verify", "-with_user_pass", *args],
                       capture_output=True, text=True, env=env, timeout=60)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r.returncode, r.stdout + r.stderr


def ssh_config(host, *lines):
    """Configuration lines over SSH (netmiko, an interactive CLI session)."""
    with ConnectHandler(device_type="cisco_ios", host=host, username=USERNAME, password=PASSWORD, fast_cli=False,
                        conn_timeout=15) as conn:
        conn.send_config_set(list(lines))


def running_config(host=HOST):
    with ConnectHandler(device_type="cisco_ios", host=host, username=USERNAME, password=PASSWORD, fast_cli=False,
                        conn_timeout=15) as conn:
        return conn.send_command("show running-config")


@pytest.fixture
def loopback():
    """LOOPBACK, created over gNMI, removed after the test."""
    with client() as gc:
        gc.set(update=[(CONFIG, {"description": "gnmi test"})], encoding="json_ietf")
    yield LOOPBACK
    with client() as gc:
        gc.set(delete=[f"/interfaces/interface[name={LOOPBACK}]"])


def test_capabilities():
    with client() as gc:
        caps = gc.capabilities()
    assert caps["gnmi_version"] == "0.10.0"
    models = {m["name"]: m["version"] for m in caps["supported_models"]}
    assert models.keys() >= {"openconfig-interfaces", "openconfig-system"}
    assert all(models.values()), models
    assert set(caps["supported_encodings"]) == {"json", "json_ietf", "proto"}


def test_gnmi_cli_capabilities_and_get():
    _, out = gnmi_cli("-capabilities")
    assert 'gNMI_version: "0.10.0"' in out and "openconfig-interfaces" in out, out
    _, out = gnmi_cli("-get", "-proto", 'path: <elem: <name: "system"> elem: <name: "state"> elem: <name: "hostname">> '
                   "encoding: JSON_IETF")
    assert "json_ietf_val" in out and HOSTNAME in out, out


def test_get_lists_the_interfaces_as_running_config_does():
    with client() as gc:
        response = gc.get(path=["/interfaces/interface/name"], encoding="json_ietf")
    names = [u["val"] for n in response["notification"] for u in n["update"]]
    assert names == re.findall(r"^interface (\S+)$", running_config(), re.MULTILINE)


def test_get_config_and_state(loopback):
    with client() as gc:
        config = leaf(gc.get(path=[CONFIG], datatype="config", encoding="json_ietf"))
        state = leaf(gc.get(path=[f"/interfaces/interface[name={loopback}]/state"], datatype="state",
                            encoding="json"))
    assert config == {"openconfig-interfaces:name": loopback, "openconfig-interfaces:description": "gnmi test",
                      "openconfig-interfaces:enabled": True, "openconfig-interfaces:mtu": 1514,
                      "openconfig-interfaces:type": "iana-if-type:softwareLoopback"}
    assert state["oper-status"] == "UP" and state["description"] == "gnmi test"
    assert isinstance(state["counters"]["in-octets"], int)  # JSON, not RFC 7951: numbers stay numbers


def test_set_is_visible_over_ssh_and_netconf(loopback):
    with client() as gc:
        response = gc.set(update=[(f"{CONFIG}/description", "set over gNMI"),
                                  (f"{CONFIG}/enabled", False)], encoding="json_ietf")
    assert [r["op"] for r in response["response"]] == ["UPDATE", "UPDATE"]
    assert f"interface {loopback}\n description set over gNMI\n shutdown\n" in running_config()
    with manager.connect(host=HOST, port=830, username=USERNAME, password=PASSWORD, hostkey_verify=False,
                         look_for_keys=False, allow_agent=False, timeout=30) as m:
        running = m.get_config(source="running", filter=("subtree", f'<native xmlns="{NATIVE}"><interface/></native>'))
    assert "set over gNMI" in running.data_xml


def test_a_bad_update_applies_nothing(loopback):
    before = running_config()
    with client() as gc, pytest.raises(gNMIException) as excinfo:
        gc.set(update=[(f"{CONFIG}/description", "half"),
                       (f"/interfaces/interface[name={loopback}]/state/oper-status", "DOWN")], encoding="json_ietf")
    assert code_of(excinfo) == grpc.StatusCode.INVALID_ARGUMENT
    assert running_config() == before


# pygnmi's subscription thread raises CANCELLED when its channel closes, as it does at the end.
QUIET_CLOSE = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@QUIET_CLOSE
def test_ssh_change_reaches_get_and_on_change(loopback):
    with client() as gc:
        stream = gc.subscribe2(subscribe={"mode": "stream", "encoding": "json_ietf", "subscription": [
            {"path": f"{CONFIG}/description", "mode": "on_change"}]})
        try:
            initial = stream.get_update(timeout=20)
            assert initial.get("sync_response") or "update" in initial, initial
            while not initial.get("sync_response"):
                initial = stream.get_update(timeout=20)
            before = time.time_ns()
            ssh_config(HOST, f"interface {loopback}", "description changed over ssh")
            after = time.time_ns()
            update = stream.get_update(timeout=20)
        finally:
            stream.close()
        assert leaf(gc.get(path=[f"{CONFIG}/description"], encoding="json_ietf")) == "changed over ssh"
    [change] = update["update"]["update"]
    assert change["val"] == "changed over ssh"
    # The device stamps the change with its commit, which the SSH session made between these two
    # readings of the same (host) clock.
    assert before <= update["update"]["timestamp"] <= after


def test_subscribe_once_poll_and_stream_with_gnmi_cli():
    _, once = gnmi_cli("-query_type", "once", "-query", "system/state/hostname")
    assert HOSTNAME in once, once
    _, polled = gnmi_cli("-query_type", "polling", "-polling_interval", "1s", "-count", "2",
                         "-query", "system/state/hostname")
    assert polled.count(HOSTNAME) >= 2, polled
    # A stream has no end: gnmi_cli stops it after -streaming_duration and reports the deadline.
    _, streamed = gnmi_cli("-query_type", "streaming", "-streaming_duration", "3s", "-display_type", "single",
                           "-query", "interfaces/interface[name=Loopback0]/config/description", check=False)
    assert "interfaces/interface/Loopback0/config/description" in streamed and "Router ID" in streamed, streamed


@QUIET_CLOSE
def test_stream_sample_at_the_lab_floor():
    with client() as gc:
        stream = gc.subscribe2(subscribe={"mode": "stream", "encoding": "proto", "subscription": [
            {"path": "/system/state/current-datetime", "mode": "sample", "sample_interval": 1_000_000}]})
        try:
            samples = [stream.get_update(timeout=20) for _ in range(50)]
        finally:
            stream.close()
    assert all("update" in s or s.get("sync_response") for s in samples), samples[:3]


@QUIET_CLOSE
def test_poll_with_pygnmi():
    with client() as gc:
        poll = gc.subscribe2(subscribe={"mode": "poll", "encoding": "json_ietf", "subscription": [
            {"path": "/system/config/hostname"}]})
        try:
            answers = [poll.get_update(timeout=20) for _ in range(2)]
        finally:
            poll.close()
    for answer in answers:
        assert answer["sync_response"] and answer["update"]["update"][0]["val"] == HOSTNAME, answer


@pytest.mark.parametrize(("path", "code"), [
    ("/interfaces/interface[name=Loopback0]/config/speed", grpc.StatusCode.NOT_FOUND),
    ("/nowhere/at/all", grpc.StatusCode.NOT_FOUND),
    ("/interfaces/interface[name=GigabitEthernet99]", grpc.StatusCode.NOT_FOUND),
])
def test_get_of_an_unknown_path(path, code):
    with client() as gc, pytest.raises(gNMIException) as excinfo:
        gc.get(path=[path], encoding="json_ietf")
    assert code_of(excinfo) == code


def test_malformed_path_is_invalid():
    status, out = gnmi_cli("-get", "-proto", 'path: <elem: <name: "interfaces"> elem: <name: "">>', check=False)
    assert status != 0 and "code = InvalidArgument" in out, out


def test_oversize_set_is_refused(loopback):
    with client() as gc, pytest.raises(gNMIException) as excinfo:
        gc.set(update=[(f"{CONFIG}/description", "x" * (5 << 20))], encoding="json_ietf")
    assert code_of(excinfo) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "xxxxxxxx" not in running_config()


def test_bad_password_is_unauthenticated():
    with pytest.raises(gNMIException) as excinfo, client(password="wrong") as gc:
        gc.get(path=["/system"])
    assert code_of(excinfo) == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize(("name", "address"), FLEET)
def test_every_device_of_the_fleet_answers_for_itself(name, address):
    with client(address) as gc:
        assert leaf(gc.get(path=["/system/state/hostname"], encoding="json_ietf")) == name
        gc.set(update=[("/interfaces/interface[name=GigabitEthernet3]/config/description", f"gnmi {name}")],
               encoding="json_ietf")
    try:
        assert f" description gnmi {name}\n" in running_config(address)
        for other, other_address in FLEET:
            if other != name:
                assert f"gnmi {name}" not in running_config(other_address)
    finally:
        with client(address) as gc:
            gc.set(update=[("/interfaces/interface[name=GigabitEthernet3]/config/description", "Lab LAN B")],
                   encoding="json_ietf")


def test_version_fleet_and_metrics_name_the_server():
    assert GNMI_VERSION and GRPC_VERSION, "run.sh passes the pinned versions"
    server = f"openconfig/gnmi {GNMI_VERSION}, grpc-go {GRPC_VERSION}"
    with urllib.request.urlopen(f"http://{HOST}:9100/version", timeout=10) as response:
        assert json.loads(response.read())["gnmi"] == server
    for device in json.loads(https(FLEET_HOST, "/admin/fleet"))["devices"]:
        assert device["crypto"]["gnmi"]["server"] == server
    refused = metric(HOST, 'device_auth_failures_total{transport="gnmi"}')
    with pytest.raises(gNMIException), client(password="wrong"):
        pass
    assert metric(HOST, 'device_auth_failures_total{transport="gnmi"}') == refused + 1
    with client() as gc:
        gc.get(path=["/system/state/hostname"])
    assert metric(HOST, 'device_gnmi_rpcs_total{code="OK",rpc="Get"}') >= 1
    assert metric(HOST, 'device_gnmi_rpcs_total{code="Unauthenticated",rpc="Capabilities"}') >= 1
    assert metric(HOST, "device_gnmi_dropped_subscriptions_total") == 0
