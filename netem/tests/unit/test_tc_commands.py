from netem_ctl.engines.tc import build_commands, clear_commands, structure_problems, update_commands
from netem_ctl.impairment import Impairment

from .shell import commands

PORTS = (22, 443)

NETEM_15MS = "netem limit 2500 delay 15000us 0us loss random 0% rate 0kbit"
PRIOMAP = " ".join(["0"] * 16)
TCP = "protocol ip prio 1 u32 match ip protocol 6 0xff"
TO_IFB = "action mirred egress redirect dev ifb-netem"


def test_build_commands_for_regional_profile():
    assert build_commands("eth0", PORTS, Impairment(rtt_ms=30)) == commands(
        "ip link add ifb-netem type ifb",
        "ip link set ifb-netem up",
        f"tc qdisc add dev eth0 root handle 1: prio bands 2 priomap {PRIOMAP}",
        f"tc qdisc add dev eth0 parent 1:2 handle 12: {NETEM_15MS}",
        f"tc filter add dev eth0 parent 1: {TCP} match ip sport 22 0xffff flowid 1:2",
        f"tc filter add dev eth0 parent 1: {TCP} match ip sport 443 0xffff flowid 1:2",
        "tc qdisc add dev eth0 handle ffff: ingress",
        f"tc filter add dev eth0 parent ffff: {TCP} match ip dport 22 0xffff {TO_IFB}",
        f"tc filter add dev eth0 parent ffff: {TCP} match ip dport 443 0xffff {TO_IFB}",
        f"tc qdisc add dev ifb-netem root handle 1: {NETEM_15MS}",
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


def test_clear_commands():
    assert clear_commands("eth0") == commands(
        "tc qdisc del dev eth0 root",
        "tc qdisc del dev eth0 ingress",
        "ip link del ifb-netem",
    )


# As printed by iproute2 6.1 in the netem VM for PORTS (abridged to the lines that matter).
READBACK = {
    "qdisc": "qdisc prio 1: root refcnt 3 bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "qdisc netem 12: parent 1:2 limit 1000 delay 20ms\n"
    "qdisc ingress ffff: parent ffff:fff1 ----------------\n",
    "egress_filters": "  match 00060000/00ff0000 at 8\n  match 00160000/ffff0000 at 20\n"
    "  match 00060000/00ff0000 at 8\n  match 01bb0000/ffff0000 at 20\n",
    "ingress_filters": "  match 00000016/0000ffff at 20\n"
    "\taction order 1: mirred (Egress Redirect to device ifb-netem) stolen\n"
    "  match 000001bb/0000ffff at 20\n"
    "\taction order 1: mirred (Egress Redirect to device ifb-netem) stolen\n",
    "ifb_qdisc": "qdisc netem 1: root refcnt 2 limit 1000 delay 20ms\n",
}


def test_structure_check_accepts_complete_readback():
    assert structure_problems(READBACK, PORTS) == []


def test_structure_check_names_what_is_missing():
    broken = {
        **READBACK,
        "ifb_qdisc": "",
        "egress_filters": READBACK["egress_filters"].replace("01bb", "0050"),
    }
    problems = structure_problems(broken, PORTS)
    assert any("ifb_qdisc" in p for p in problems)
    assert any("01bb0000/ffff0000" in p for p in problems)
    assert len(problems) == 2
