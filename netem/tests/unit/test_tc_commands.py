import pytest

from netem_ctl.engines.ports import Ports
from netem_ctl.engines.tc import (
    build_commands,
    clear_commands,
    offload_commands,
    structure_problems,
    update_commands,
)
from netem_ctl.impairment import Impairment

from .shell import commands

PORTS = Ports(tcp=(22, 443), udp=(443,))

NETEM_15MS = "netem limit 2500 delay 15000us 0us loss random 0% rate 0kbit"
PRIOMAP = " ".join(["0"] * 16)
TCP = "protocol ip prio 1 u32 match ip protocol 6 0xff"
UDP = "protocol ip prio 1 u32 match ip protocol 17 0xff"
TO_IFB = "action mirred egress redirect dev ifb-netem"


def test_build_commands_for_regional_profile():
    assert build_commands("eth0", PORTS, Impairment(rtt_ms=30)) == commands(
        "ip link add ifb-netem type ifb",
        "ip link set ifb-netem up",
        f"tc qdisc add dev eth0 root handle 1: prio bands 2 priomap {PRIOMAP}",
        f"tc qdisc add dev eth0 parent 1:2 handle 12: {NETEM_15MS}",
        f"tc filter add dev eth0 parent 1: {TCP} match ip sport 22 0xffff flowid 1:2",
        f"tc filter add dev eth0 parent 1: {TCP} match ip sport 443 0xffff flowid 1:2",
        f"tc filter add dev eth0 parent 1: {UDP} match ip sport 443 0xffff flowid 1:2",
        "tc qdisc add dev eth0 handle ffff: ingress",
        f"tc filter add dev eth0 parent ffff: {TCP} match ip dport 22 0xffff {TO_IFB}",
        f"tc filter add dev eth0 parent ffff: {TCP} match ip dport 443 0xffff {TO_IFB}",
        f"tc filter add dev eth0 parent ffff: {UDP} match ip dport 443 0xffff {TO_IFB}",
        f"tc qdisc add dev ifb-netem root handle 1: {NETEM_15MS}",
    )


def test_empty_udp_list_adds_only_tcp_filters():
    built = build_commands("eth0", Ports(tcp=(22,), udp=()), Impairment(rtt_ms=30))
    assert [command for command in built if command[1] == "filter"] == commands(
        f"tc filter add dev eth0 parent 1: {TCP} match ip sport 22 0xffff flowid 1:2",
        f"tc filter add dev eth0 parent ffff: {TCP} match ip dport 22 0xffff {TO_IFB}",
    )


def test_update_replaces_both_netem_qdiscs_with_every_parameter():
    impairment = Impairment(
        rtt_ms=100, split=0.3, jitter_ms=10, loss_pct=0.5, rate_mbit=2.5, limit_packets=3000
    )
    assert update_commands("eth0", impairment) == commands(
        "tc qdisc replace dev eth0 parent 1:2 handle 12: netem limit 3000 "
        "delay 70000us 7000us loss random 0.5% rate 2500kbit",
        "tc qdisc replace dev ifb-netem root handle 1: netem limit 3000 "
        "delay 30000us 3000us loss random 0.5% rate 2500kbit",
    )


def test_jitter_in_order_takes_a_rate_that_limits_nothing():
    impairment = Impairment(rtt_ms=100, jitter_ms=20, keep_order=True)
    assert update_commands("eth0", impairment)[0][-2:] == ["rate", "10000000kbit"]
    reordering = Impairment(rtt_ms=100, jitter_ms=20)
    assert update_commands("eth0", reordering)[0][-2:] == ["rate", "0kbit"]
    limited = Impairment(rtt_ms=100, jitter_ms=20, rate_mbit=5, keep_order=True)
    assert update_commands("eth0", limited)[0][-2:] == ["rate", "5000kbit"]


@pytest.mark.parametrize(
    ("impairment", "state"),
    [
        (Impairment(rtt_ms=30), "on"),
        (Impairment(rtt_ms=30, loss_pct=1), "off"),
        (Impairment(rtt_ms=30, jitter_ms=5), "off"),
    ],
)
def test_segmentation_offloads_are_off_while_loss_or_jitter_is_drawn(impairment, state):
    assert offload_commands("eth0", impairment) == commands(
        f"ethtool -K eth0 tso {state} gso {state}"
    )


def test_clear_commands():
    assert clear_commands("eth0") == commands(
        "tc qdisc del dev eth0 root",
        "tc qdisc del dev eth0 ingress",
        "ip link del ifb-netem",
    )


FILTER = "filter protocol ip pref 1 u32 chain 0"
REDIRECT = "\taction order 1: mirred (Egress Redirect to device ifb-netem) stolen\n"

# As printed by iproute2 6.1 in the netem VM for PORTS (trailing spaces dropped): u32 prints its
# keys in hex, the protocol as the IP header's word at 8 (6 = TCP, 0x11 = UDP), the port at 20.
READBACK = {
    "qdisc": "qdisc prio 1: root refcnt 2 bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "qdisc netem 12: parent 1:2 limit 1000 delay 20ms\n"
    "qdisc ingress ffff: parent ffff:fff1 ----------------\n",
    "egress_filters": f"{FILTER}\n"
    f"{FILTER} fh 800: ht divisor 1\n"
    f"{FILTER} fh 800::800 order 2048 key ht 800 bkt 0 *flowid 1:2 not_in_hw\n"
    "  match 00060000/00ff0000 at 8\n"
    "  match 00160000/ffff0000 at 20\n"
    f"{FILTER} fh 800::801 order 2049 key ht 800 bkt 0 *flowid 1:2 not_in_hw\n"
    "  match 00060000/00ff0000 at 8\n"
    "  match 01bb0000/ffff0000 at 20\n"
    f"{FILTER} fh 800::802 order 2050 key ht 800 bkt 0 *flowid 1:2 not_in_hw\n"
    "  match 00110000/00ff0000 at 8\n"
    "  match 01bb0000/ffff0000 at 20\n",
    "ingress_filters": f"{FILTER}\n"
    f"{FILTER} fh 800: ht divisor 1\n"
    f"{FILTER} fh 800::800 order 2048 key ht 800 bkt 0 terminal flowid not_in_hw\n"
    "  match 00060000/00ff0000 at 8\n"
    "  match 00000016/0000ffff at 20\n"
    f"{REDIRECT}\tindex 1 ref 1 bind 1\n\n"
    f"{FILTER} fh 800::801 order 2049 key ht 800 bkt 0 terminal flowid not_in_hw\n"
    "  match 00060000/00ff0000 at 8\n"
    "  match 000001bb/0000ffff at 20\n"
    f"{REDIRECT}\tindex 2 ref 1 bind 1\n\n"
    f"{FILTER} fh 800::802 order 2050 key ht 800 bkt 0 terminal flowid not_in_hw\n"
    "  match 00110000/00ff0000 at 8\n"
    "  match 000001bb/0000ffff at 20\n"
    f"{REDIRECT}\tindex 3 ref 1 bind 1\n\n",
    "ifb_qdisc": "qdisc netem 1: root refcnt 2 limit 1000 delay 20ms\n",
}


def without_last_filter(text: str) -> str:
    """The readback as if the last filter added (UDP 443) were gone."""
    return text[: text.rindex(FILTER)]


def test_structure_check_accepts_complete_readback():
    assert structure_problems(READBACK, PORTS) == []


def test_structure_check_names_what_is_missing():
    broken = {
        **READBACK,
        "ifb_qdisc": "",
        "egress_filters": READBACK["egress_filters"].replace("00160000", "00500000"),
    }
    problems = structure_problems(broken, PORTS)
    assert any("ifb_qdisc" in p for p in problems)
    assert any("tcp sport 22" in p and "00160000/ffff0000" in p for p in problems)
    assert len(problems) == 2


@pytest.mark.parametrize(
    ("section", "field", "port_key"),
    [
        ("egress_filters", "sport", "01bb0000/ffff0000"),
        ("ingress_filters", "dport", "000001bb/0000ffff"),
    ],
)
def test_structure_check_tells_udp_from_tcp(section, field, port_key):
    """The TCP filter on 443 does not stand in for the missing UDP one."""
    broken = {**READBACK, section: without_last_filter(READBACK[section])}
    assert structure_problems(broken, PORTS) == [
        f"tc {section}: no filter for udp {field} 443 (00110000/00ff0000 at 8, {port_key} at 20)"
    ]


def test_structure_check_wants_the_redirect_of_each_ingress_filter():
    broken = {**READBACK, "ingress_filters": READBACK["ingress_filters"].replace(REDIRECT, "", 1)}
    assert structure_problems(broken, PORTS) == [
        "tc ingress_filters: no filter for tcp dport 22 (00060000/00ff0000 at 8, "
        "00000016/0000ffff at 20)"
    ]


def test_structure_check_without_udp_ports_ignores_udp_filters():
    tcp_only = {
        **READBACK,
        "egress_filters": without_last_filter(READBACK["egress_filters"]),
        "ingress_filters": without_last_filter(READBACK["ingress_filters"]),
    }
    assert structure_problems(tcp_only, Ports(tcp=(22, 443), udp=())) == []
