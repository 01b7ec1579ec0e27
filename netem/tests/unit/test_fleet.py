"""The fleet's address plan and the commands that put it on the interface."""

import json
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

import pytest

from netem_ctl.fleet import (
    SINGLE_DEVICE,
    Fleet,
    FleetError,
    parse_fleet,
    parse_interfaces,
    plan,
)

from .shell import commands

BLOCK = IPv4Network("198.18.100.128/25")
LAB = IPv4Interface("198.18.100.2/24")


def test_device_k_is_on_the_kth_address_of_the_block():
    assert Fleet(3, BLOCK).addresses() == [
        IPv4Address("198.18.100.129"),
        IPv4Address("198.18.100.130"),
        IPv4Address("198.18.100.131"),
    ]


def test_parse_fleet_defaults_to_the_single_device():
    assert parse_fleet("1", "") == SINGLE_DEVICE
    assert parse_fleet("", "") == SINGLE_DEVICE
    assert parse_fleet("100", "198.18.100.128/25") == Fleet(100, BLOCK)


@pytest.mark.parametrize(
    ("size", "block", "message"),
    [
        ("x", "", "must be an integer"),
        ("0", "", "must be 1..250"),
        ("251", "198.18.0.0/16", "must be 1..250"),
        ("2", "", "needs DEVICE_FLEET_ADDRESSES"),
        ("2", "198.18.100.129/25", "CIDR block"),
        ("2", "nonsense", "CIDR block"),
        ("127", "198.18.100.128/25", "holds 126 devices"),
    ],
)
def test_parse_fleet_refuses_what_cannot_work(size, block, message):
    with pytest.raises(FleetError, match=message):
        parse_fleet(size, block)


def test_parse_interfaces_reads_ip_json():
    shown = json.dumps(
        [
            {
                "ifname": "eth0",
                "addr_info": [
                    {"family": "inet", "local": "198.18.100.2", "prefixlen": 24},
                    {"family": "inet", "local": "198.18.100.129", "prefixlen": 32},
                    {"family": "inet6", "local": "fe80::1", "prefixlen": 64},
                ],
            }
        ]
    )
    assert parse_interfaces(shown) == [LAB, IPv4Interface("198.18.100.129/32")]
    assert parse_interfaces("") == []


def test_plan_adds_what_is_missing_only():
    present = [LAB, IPv4Interface("198.18.100.129/32")]
    assert plan(Fleet(3, BLOCK), present, "eth0") == (
        commands(
            "ip addr replace 198.18.100.130/32 dev eth0",
            "ip addr replace 198.18.100.131/32 dev eth0",
        ),
        [],
    )


def test_plan_removes_a_larger_fleet_left_from_before():
    present = [LAB, *(IPv4Interface(f"198.18.100.{host}/32") for host in (129, 130, 131))]
    assert plan(Fleet(1, BLOCK), present, "eth0") == (
        commands(
            "ip addr del 198.18.100.130/32 dev eth0",
            "ip addr del 198.18.100.131/32 dev eth0",
        ),
        [],
    )


def test_plan_refuses_a_block_off_the_lab_subnet():
    _, problems = plan(Fleet(2, IPv4Network("198.18.200.0/24")), [LAB], "eth0")
    assert problems
    assert "not on eth0's subnet (198.18.100.0/24)" in problems[0]


def test_plan_refuses_the_containers_own_address():
    own = IPv4Interface("198.18.100.130/24")
    _, problems = plan(Fleet(3, BLOCK), [own], "eth0")
    assert problems == [
        "fleet address 198.18.100.130 is the container's own address: keep the fleet block "
        "out of the network's ip_range"
    ]


def test_single_device_needs_nothing():
    assert plan(SINGLE_DEVICE, [LAB], "eth0") == ([], [])
