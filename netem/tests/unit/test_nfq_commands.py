from netem_ctl.engines.nfq import (
    delayer_command,
    delayer_params,
    expected_rule_lines,
    install_commands,
    parse_key_values,
    remove_commands,
)
from netem_ctl.engines.ports import Ports
from netem_ctl.impairment import Impairment

from .shell import command, commands

IPT = "iptables-legacy -w -t mangle"
TCP = "-p tcp -m multiport"
UDP = "-p udp -m multiport"
MARK = "-j MARK --set-xmark 0x4e51/0xffffffff"


def test_install_commands():
    assert install_commands("eth0", Ports(tcp=(22, 443, 830), udp=(443, 4433))) == commands(
        f"{IPT} -N NETEM_LAB_IN",
        f"{IPT} -A NETEM_LAB_IN -i eth0 {TCP} --dports 22,443,830 -j NFQUEUE --queue-num 1",
        f"{IPT} -A NETEM_LAB_IN -i eth0 {UDP} --dports 443,4433 -j NFQUEUE --queue-num 1",
        f"{IPT} -N NETEM_LAB_OUT",
        f"{IPT} -A NETEM_LAB_OUT -i tl-detour1 -o eth0 {TCP} --sports 22,443,830 "
        "-j NFQUEUE --queue-num 2",
        f"{IPT} -A NETEM_LAB_OUT -i tl-detour1 -o eth0 {UDP} --sports 443,4433 "
        "-j NFQUEUE --queue-num 2",
        f"{IPT} -N NETEM_LAB_DETOUR",
        f"{IPT} -A NETEM_LAB_DETOUR -o eth0 {TCP} --sports 22,443,830 {MARK}",
        f"{IPT} -A NETEM_LAB_DETOUR -o eth0 {UDP} --sports 443,4433 {MARK}",
        f"{IPT} -I PREROUTING 1 -j NETEM_LAB_IN",
        f"{IPT} -I FORWARD 1 -j NETEM_LAB_OUT",
        f"{IPT} -I OUTPUT 1 -j NETEM_LAB_DETOUR",
    )


def test_empty_udp_list_installs_no_udp_rule():
    installed = install_commands("eth0", Ports(tcp=(22,), udp=()))
    assert not any("udp" in command for command in installed)
    assert sum("tcp" in command for command in installed) == 3


def test_no_queue_bypass_anywhere():
    ports = Ports(tcp=(22,), udp=(443,))
    assert not any("--queue-bypass" in command for command in install_commands("eth0", ports))


def test_remove_commands():
    assert remove_commands() == commands(
        f"{IPT} -D PREROUTING -j NETEM_LAB_IN",
        f"{IPT} -D FORWARD -j NETEM_LAB_OUT",
        f"{IPT} -D OUTPUT -j NETEM_LAB_DETOUR",
        f"{IPT} -F NETEM_LAB_IN",
        f"{IPT} -X NETEM_LAB_IN",
        f"{IPT} -F NETEM_LAB_OUT",
        f"{IPT} -X NETEM_LAB_OUT",
        f"{IPT} -F NETEM_LAB_DETOUR",
        f"{IPT} -X NETEM_LAB_DETOUR",
    )


def test_expected_rules_are_spelled_like_iptables_list_rules():
    assert expected_rule_lines("eth0", Ports(tcp=(22,), udp=(443,))) == [
        "-A PREROUTING -j NETEM_LAB_IN",
        "-A FORWARD -j NETEM_LAB_OUT",
        "-A OUTPUT -j NETEM_LAB_DETOUR",
        "-A NETEM_LAB_IN -i eth0 -p tcp -m multiport --dports 22 -j NFQUEUE --queue-num 1",
        "-A NETEM_LAB_IN -i eth0 -p udp -m multiport --dports 443 -j NFQUEUE --queue-num 1",
        "-A NETEM_LAB_OUT -i tl-detour1 -o eth0 -p tcp -m multiport --sports 22 "
        "-j NFQUEUE --queue-num 2",
        "-A NETEM_LAB_OUT -i tl-detour1 -o eth0 -p udp -m multiport --sports 443 "
        "-j NFQUEUE --queue-num 2",
        "-A NETEM_LAB_DETOUR -o eth0 -p tcp -m multiport --sports 22 "
        "-j MARK --set-xmark 0x4e51/0xffffffff",
        "-A NETEM_LAB_DETOUR -o eth0 -p udp -m multiport --sports 443 "
        "-j MARK --set-xmark 0x4e51/0xffffffff",
    ]


def test_delayer_params_file():
    direction = Impairment(rtt_ms=30, jitter_ms=2, loss_pct=0.25, rate_mbit=50).toward_device()
    assert delayer_params(direction, 7) == (
        "generation=7\ndelay_us=15000\njitter_us=1000\nloss_ppm=2500\nrate_bps=50000000\nlimit_packets=1000\n"
        "keep_order=0\n"
    )


def test_delayer_params_file_keeps_order_when_the_profile_says_so():
    direction = Impairment(rtt_ms=30, jitter_ms=10, keep_order=True).from_device()
    assert "jitter_us=5000\n" in delayer_params(direction, 1)
    assert delayer_params(direction, 1).endswith("keep_order=1\n")


def test_delayer_command():
    assert delayer_command(
        "/usr/local/bin/nfq-delayer",
        2,
        "/run/netem/from_device.params",
        "/run/netem/from_device.stats",
    ) == command(
        "/usr/local/bin/nfq-delayer --queue-num 2 "
        "--params /run/netem/from_device.params --stats /run/netem/from_device.stats"
    )


def test_parse_key_values_ignores_junk():
    assert parse_key_values("generation=3\nheld=0\nbogus\nx=y\n") == {"generation": 3, "held": 0}
