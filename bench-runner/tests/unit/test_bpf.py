import ipaddress
import struct

import pytest

from bench_runner.wire import bpf
from bpf_interpreter import Packet, run
from wire_packets import ETHERNET, ipv4_tcp, ipv4_udp, ipv6_tcp, ipv6_udp

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


KEXINIT_START = bytes.fromhex("000005dc") + bytes([7, 20]) + bytes(16)
"""An SSH binary packet's header (1500 bytes, 7 of padding), KEXINIT and its cookie."""
CLIENT_HELLO_START = bytes.fromhex("1603010200") + bytes([1, 0, 1, 0xFC])
SERVER_HELLO_START = bytes.fromhex("160303007a") + bytes([2, 0, 0, 0x76])
TCP_TIMESTAMPS = bytes([1, 1, 8, 10]) + bytes(8)


@pytest.mark.parametrize(
    "payload",
    [
        b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u7\r\n",
        b"SSH-2.0-paramiko_5.1.0\r\n" + KEXINIT_START,
        KEXINIT_START,
        CLIENT_HELLO_START,
        SERVER_HELLO_START,
    ],
    ids=["identification", "identification-and-kexinit", "kexinit", "clienthello", "serverhello"],
)
def test_hello_filter_keeps_the_packets_that_start_a_handshake(payload: bytes) -> None:
    program = bpf.hello_filter(TARGET, (22, 443))
    outgoing = ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 443, payload=payload)
    incoming = ETHERNET + ipv4_tcp(
        TARGET, RUNNER, 22, 40000, payload=payload, options=b"\x01" * 4, tcp_options=TCP_TIMESTAMPS
    )
    assert run(program, Packet(outgoing)) == bpf.HELLO_SNAPLEN
    assert run(program, Packet(incoming)) == bpf.HELLO_SNAPLEN
    v6 = bpf.hello_filter("2001:db8::3", (22,))
    frame = (
        ETHERNET[:12]
        + b"\x86\xdd"
        + ipv6_tcp("2001:db8::9", "2001:db8::3", 40000, 22, payload=payload)
    )
    assert run(v6, Packet(frame, protocol=bpf.ETH_P_IPV6)) == bpf.HELLO_SNAPLEN


@pytest.mark.parametrize(
    "payload",
    [
        b"",  # a pure ACK: loading its payload ends the program
        b"SSH",  # shorter than the four bytes loaded
        bytes.fromhex("0000001c") + bytes([6, 21]),  # NEWKEYS
        bytes.fromhex("00000020") + bytes([4, 94]),  # an unencrypted channel message
        bytes.fromhex("1703030040") + bytes(8),  # TLS application data
        bytes.fromhex("1603030800") + bytes([11, 0, 7, 0xFC]),  # a Certificate record
        bytes.fromhex("9f3e21aa07c4") + bytes(40),  # encrypted bytes
    ],
    ids=["ack", "short", "newkeys", "ssh-channel", "tls-data", "certificate", "encrypted"],
)
def test_hello_filter_drops_every_other_payload(payload: bytes) -> None:
    program = bpf.hello_filter(TARGET, (22,))
    frame = ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 22, payload=payload)
    assert not accepts(program, Packet(frame))


def test_hello_filter_keeps_only_the_modes_connections() -> None:
    program = bpf.hello_filter(TARGET, (22,))
    for frame in (
        ETHERNET + ipv4_tcp(RUNNER, OTHER, 40000, 22, payload=KEXINIT_START),
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 830, payload=KEXINIT_START),
    ):
        assert not accepts(program, Packet(frame))
    loopback = bpf.hello_filter("127.0.0.1", (22,), skip_outgoing=True)
    frame = ETHERNET + ipv4_tcp("127.0.0.1", "127.0.0.1", 40000, 22, payload=KEXINIT_START)
    assert accepts(loopback, Packet(frame))
    assert not accepts(loopback, Packet(frame, pkttype=bpf.PACKET_OUTGOING))


QUIC_INITIAL_START = bytes.fromhex("c00000000108") + bytes(8)
"""A QUIC long header: Initial, version 1, an 8-byte destination connection ID."""
QUIC_SHORT_HEADER = bytes.fromhex("4f") + bytes(40)


def test_udp_filter_keeps_both_directions_of_the_modes_ports() -> None:
    program = bpf.udp_filter(TARGET, (443,))
    assert accepts(program, Packet(ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 443)))
    assert run(program, Packet(ETHERNET + ipv4_udp(TARGET, RUNNER, 443, 40000))) == bpf.SNAPLEN


@pytest.mark.parametrize(
    "frame",
    [
        ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 443),  # the HTTPS port's TCP
        ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 53),  # another port of the target
        ETHERNET + ipv4_udp(RUNNER, OTHER, 40000, 443),  # another host
        ETHERNET + ipv4_udp(RUNNER, TARGET, 443, 40000),  # our port 443, not its
        ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 443, fragment_offset=185),
    ],
    ids=["tcp", "other-port", "other-host", "own-port", "fragment"],
)
def test_udp_filter_drops_everything_else(frame: bytes) -> None:
    assert not accepts(bpf.udp_filter(TARGET, (443,)), Packet(frame))


def test_tcp_filter_drops_the_udp_port() -> None:
    frame = ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 443)
    assert not accepts(bpf.tcp_filter(TARGET, (443,)), Packet(frame))


def test_udp_filter_on_ipv6_and_loopback() -> None:
    target, runner = "2001:db8::3", "2001:db8::9"
    v6 = bpf.udp_filter(target, (443,))
    frame = ETHERNET[:12] + b"\x86\xdd" + ipv6_udp(runner, target, 40000, 443)
    assert accepts(v6, Packet(frame, protocol=bpf.ETH_P_IPV6))
    assert not accepts(v6, Packet(ETHERNET + ipv6_tcp(runner, target, 40000, 443), bpf.ETH_P_IPV6))
    loopback = bpf.udp_filter("127.0.0.1", (443,), skip_outgoing=True)
    frame = ETHERNET + ipv4_udp("127.0.0.1", "127.0.0.1", 40000, 443)
    assert accepts(loopback, Packet(frame))
    assert not accepts(loopback, Packet(frame, pkttype=bpf.PACKET_OUTGOING))


def test_describe_names_the_protocol() -> None:
    assert bpf.describe(TARGET, (443,), bpf.Protocol.UDP) == f"udp and host {TARGET} and (port 443)"


def test_quic_hello_filter_keeps_the_long_headers_whole() -> None:
    program = bpf.quic_hello_filter(TARGET, (443,))
    for frame in (
        ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 443, payload=QUIC_INITIAL_START),
        ETHERNET + ipv4_udp(TARGET, RUNNER, 443, 40000, payload=QUIC_INITIAL_START),
    ):
        assert run(program, Packet(frame)) == bpf.HELLO_SNAPLEN
    for payload in (QUIC_SHORT_HEADER, b""):
        frame = ETHERNET + ipv4_udp(RUNNER, TARGET, 40000, 443, payload=payload)
        assert not accepts(program, Packet(frame))
    tcp = ETHERNET + ipv4_tcp(RUNNER, TARGET, 40000, 443, payload=QUIC_INITIAL_START)
    assert not accepts(program, Packet(tcp))
