"""The model-driven reads and writes of the RESTCONF and NETCONF modes (pure): discovery of the
device's interfaces in running-config order, the interface of each command, the RESTCONF
resources and NETCONF filters, the bodies of the batch write and the restore, the checks of
what comes back."""

import json

import pytest

from bench_runner.modes.clients.native_interfaces import (
    INTERFACES_PATH,
    Interface,
    check_get_config,
    check_read,
    check_restored,
    check_write,
    description_value,
    get_config_rpc,
    interface_for,
    interfaces_from_xml,
    patch_body,
    restore_patch,
)
from bench_runner.protocols.netconf.messages import NATIVE_NS
from bench_runner.validation import IterationError

NATIVE_INTERFACES = (
    f'<interface xmlns="{NATIVE_NS}"><Loopback><name>0</name><description>Router ID'
    "</description></Loopback><GigabitEthernet><name>1</name><description>WAN</description>"
    "</GigabitEthernet><VirtualPortGroup><name>0</name></VirtualPortGroup><GigabitEthernet>"
    "<name>2</name><description>LAN &amp; more</description></GigabitEthernet></interface>"
)
LO0, GI1, VPG0, GI2 = (
    Interface("Loopback", "0"),
    Interface("GigabitEthernet", "1"),
    Interface("VirtualPortGroup", "0"),
    Interface("GigabitEthernet", "2"),
)


def test_discovery_keeps_running_config_order_and_descriptions() -> None:
    found = interfaces_from_xml(NATIVE_INTERFACES)
    assert list(found) == [LO0, GI1, VPG0, GI2]  # not grouped by type, as JSON would be
    assert found == {LO0: "Router ID", GI1: "WAN", VPG0: None, GI2: "LAN & more"}
    netconf_reply = (
        '<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" message-id="1"><data>'
        f'<native xmlns="{NATIVE_NS}"><hostname>r1</hostname><interface><Loopback><name>0'
        "</name></Loopback><GigabitEthernet><name>1</name></GigabitEthernet></interface>"
        "</native></data></rpc-reply>"
    )
    assert interfaces_from_xml(netconf_reply) == {LO0: None, GI1: None}


@pytest.mark.parametrize(
    "document", ["<data/>", f'<interface xmlns="{NATIVE_NS}"/>', "not xml", "<interface/>"]
)
def test_discovery_without_interfaces_fails(document: str) -> None:
    with pytest.raises(IterationError, match="interfaces"):
        interfaces_from_xml(document)


def test_command_i_reads_interface_i_mod_k() -> None:
    interfaces = [LO0, GI1, GI2]
    assert [interface_for(interfaces, i).label for i in range(1, 8)] == [
        "Loopback0",
        "GigabitEthernet1",
        "GigabitEthernet2",
        "Loopback0",
        "GigabitEthernet1",
        "GigabitEthernet2",
        "Loopback0",
    ]


def test_resources_and_filters() -> None:
    assert GI1.restconf_path() == f"{INTERFACES_PATH}/GigabitEthernet=1"
    assert Interface("GigabitEthernet", "0/0/1").restconf_path().endswith("=0%2F0%2F1")
    assert GI2.subtree_filter() == (
        f'<native xmlns="{NATIVE_NS}"><interface><GigabitEthernet><name>2</name>'
        "</GigabitEthernet></interface></native>"
    )
    rpc = get_config_rpc(GI2.subtree_filter(), 7).decode()
    assert rpc.startswith('<rpc message-id="7" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">')
    assert '<get-config><source><running/></source><filter type="subtree">' in rpc


def test_json_and_xml_reads_are_checked() -> None:
    json_body = '{"Cisco-IOS-XE-native:GigabitEthernet":[{"name":"1","description":"WAN"}]}'
    assert check_read(GI1, "json", 200, json_body) == json_body
    xml_body = f'<GigabitEthernet xmlns="{NATIVE_NS}"><name>1</name></GigabitEthernet>'
    assert check_read(GI1, "xml", 200, xml_body) == xml_body
    for encoding, body in (("json", json_body), ("xml", xml_body)):
        with pytest.raises(IterationError, match="not its"):
            check_read(GI2, encoding, 200, body)  # type: ignore[arg-type]
    with pytest.raises(IterationError, match="not JSON"):
        check_read(GI1, "json", 200, xml_body)
    with pytest.raises(IterationError, match="not XML"):
        check_read(GI1, "xml", 200, json_body)
    with pytest.raises(IterationError, match="HTTP 404"):
        check_read(GI1, "json", 404, '{"ietf-restconf:errors":{}}')


def test_one_patch_carries_every_write_in_order() -> None:
    values = [description_value("t0k", 3, i) for i in (1, 2, 3)]
    assert values == ["bench t0k 3.1", "bench t0k 3.2", "bench t0k 3.3"]
    body = json.loads(patch_body([(LO0, values[0]), (GI1, values[1]), (GI2, values[2])]))
    assert body == {
        "Cisco-IOS-XE-native:native": {
            "interface": {
                "Loopback": [{"name": "0", "description": "bench t0k 3.1"}],
                "GigabitEthernet": [
                    {"name": "1", "description": "bench t0k 3.2"},
                    {"name": "2", "description": "bench t0k 3.3"},
                ],
            }
        }
    }
    assert check_write(204, "", 3) == "HTTP 204: 3 descriptions written"
    with pytest.raises(IterationError, match="HTTP 409"):
        check_write(409, "in-use", 3)


def test_restore_is_one_yang_patch_merging_or_removing() -> None:
    patch = json.loads(restore_patch({LO0: "Router ID", VPG0: None}))["ietf-yang-patch:yang-patch"]
    assert patch["edit"] == [
        {
            "edit-id": "1",
            "target": "/interface/Loopback=0/description",
            "operation": "merge",
            "value": {"Cisco-IOS-XE-native:description": "Router ID"},
        },
        {
            "edit-id": "2",
            "target": "/interface/VirtualPortGroup=0/description",
            "operation": "remove",
        },
    ]
    check_restored(200, '{"ietf-yang-patch:yang-patch-status":{"patch-id":"x","ok":[null]}}')
    with pytest.raises(IterationError, match="restore"):
        check_restored(409, '{"ietf-yang-patch:yang-patch-status":{"edit-status":{}}}')


def test_get_config_reply_must_hold_the_interface() -> None:
    reply = (
        f'<rpc-reply><data><native xmlns="{NATIVE_NS}"><interface><GigabitEthernet><name>2</name>'
    )
    assert check_get_config(GI2, reply) == reply
    with pytest.raises(IterationError, match="GigabitEthernet1"):
        check_get_config(GI1, reply)
