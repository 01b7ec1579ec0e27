import ipaddress
import struct

import pytest

from bench_runner.wire import bpf
from bpf_interpreter import Packet, run
from wire_packets import ETHERNET, ipv4_tcp, ipv6_tcp

TARGET = "198.18.101.3"
RUNNER = "198.18.101.9"
OTHER = "198.18.101.4"


def accepts(program: list[tuple[int, int, int, int]], packet: Packet) -> bool:
    return run(program, packet) > 0


def test_assemble_resolves_forward_labels() -> None:
    program = bpf.assemble(
        [
            bpf.Insn(bpf.BPF_JMP | bpf.BPF_JEQ, 6, "yes", "no"),
            bpf.Insn(bpf.BPF_RET, 1),
            "no",
            bpf.Insn(bpf.BPF_RET, 0),
            "yes",
            bpf.Insn(bpf.BPF_RET, 128),
        ]
    )
    assert program == [(0x15, 2, 1, 6), (0x06, 0, 0, 1), (0x06, 0, 0, 0), (0x06, 0, 0, 128)]


def test_assemble_rejects_backward_jumps() -> None:
    with pytest.raises(ValueError, match="out of range"):
        bpf.assemble(["top", bpf.Insn(bpf.BPF_JMP | bpf.BPF_JEQ, 0, "top", "top")])


def test_ipv4_filter_keeps_both_directions_of_the_modes_ports() -> None:
    program = bpf.tcp_filter(TARGET, (22, 830))
    assert accepts(program, Packet(ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22)))
    assert accepts(program, Packet(ETHERNET + ipv4_tcp(TARGET, RUNNER, 830, 40000)))
    assert run(program, Packet(ETHERNET + ipv4_tcp(TARGET, RUNNER, 22, 40000))) == bpf.SNAPLEN


@pytest.mark.parametrize(
    "frame",
    [
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 443),  # another port of the target
        ETHERNET + ipv4_tcp(TARGET, RUNNER, 9100, 40000),  # its metrics port
        ETHERNET + ipv4_tcp(RUNNER, OTHER, 40000, 22),  # another host
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 22, 40000),  # our port 22, not its
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22, protocol=17),  # UDP
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22, fragment_offset=185),
    ],
)
def test_ipv4_filter_drops_everything_else(frame: bytes) -> None:
    assert not accepts(bpf.tcp_filter(TARGET, (22,)), Packet(frame))


def test_ipv4_filter_reads_the_tcp_ports_past_ip_options() -> None:
    frame = ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22, options=b"\x01" * 8)
    assert accepts(bpf.tcp_filter(TARGET, (22,)), Packet(frame))


def test_filter_checks_the_network_protocol() -> None:
    frame = ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22)
    assert not accepts(bpf.tcp_filter(TARGET, (22,)), Packet(frame, protocol=0x0806))


def test_loopback_keeps_only_arrivals() -> None:
    program = bpf.tcp_filter("127.0.0.1", (8830,), skip_outgoing=True)
    frame = ETHERNET + ipv4_tcp("127.0.0.1", "127.0.0.1", 40000, 8830)
    assert accepts(program, Packet(frame, pkttype=0))
    assert not accepts(program, Packet(frame, pkttype=bpf.PACKET_OUTGOING))


def test_link_header_offset() -> None:
    program = bpf.tcp_filter(TARGET, (22,), link_header=0)
    assert accepts(program, Packet(ipv4_tcp(RUNNER, TARGET, 40000, 22)))
    assert not accepts(bpf.tcp_filter(TARGET, (22,)), Packet(ipv4_tcp(RUNNER, TARGET, 40000, 22)))


def test_ipv6_filter() -> None:
    target, runner = "2001:db8::3", "2001:db8::9"
    program = bpf.tcp_filter(target, (22,))
    v6 = bpf.ETH_P_IPV6
    assert accepts(program, Packet(ETHERNET + ipv6_tcp(runner, target, 40000, 22), v6))
    assert accepts(program, Packet(ETHERNET + ipv6_tcp(target, runner, 22, 40000), v6))
    assert not accepts(program, Packet(ETHERNET + ipv6_tcp(runner, target, 40000, 443), v6))
    # An address differing only in its last word, and one only in its first.
    near = str(ipaddress.IPv6Address(target) + 1)
    assert not accepts(program, Packet(ETHERNET + ipv6_tcp(runner, near, 40000, 22), v6))
    assert not accepts(program, Packet(ETHERNET + ipv6_tcp(runner, "2001:db9::3", 40000, 22), v6))
    assert not accepts(program, Packet(ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22)))


def test_describe_uses_tcpdump_syntax() -> None:
    assert bpf.describe(TARGET, (22, 830)) == f"tcp and host {TARGET} and (port 22 or port 830)"


def test_sock_fprog_layout() -> None:
    # struct sock_fprog on 64-bit Linux: unsigned short len, padding, pointer.
    assert struct.calcsize("HL") == 16
