"""Classic BPF (``SO_ATTACH_FILTER``) programs selecting the TCP or UDP traffic of a target.

The kernel runs the program on every packet of the bound interface before anything is
copied to the runner, so only the mode's own connections (target address, one of the
mode's ports, either direction) ever reach the capture ring, trimmed to their headers
(``tcp_filter``; ``udp_filter`` for QUIC, which keeps the first bytes of its payload too);
``hello_filter`` and ``quic_hello_filter`` keep, of those, only the packets that start a
handshake, with their payload (what the connection negotiated).
Offsets are from the start of the frame as an ``AF_PACKET``/``SOCK_RAW`` socket sees it:
``link_header`` bytes of link-layer header (14 on Ethernet and loopback), then IP.
"""

import ctypes
import ipaddress
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

# Instruction classes and modes (linux/filter.h, linux/bpf_common.h).
BPF_LD, BPF_LDX, BPF_ALU, BPF_JMP, BPF_RET, BPF_MISC = 0x00, 0x01, 0x04, 0x05, 0x06, 0x07
BPF_IMM = 0x00
BPF_W, BPF_H, BPF_B = 0x00, 0x08, 0x10
BPF_ABS, BPF_IND, BPF_MSH, BPF_K, BPF_X = 0x20, 0x40, 0xA0, 0x00, 0x08
BPF_JEQ, BPF_JSET = 0x10, 0x40
BPF_ADD, BPF_RSH, BPF_AND = 0x00, 0x70, 0x50
BPF_TAX = 0x00
SO_ATTACH_FILTER = 26  # asm-generic/socket.h; the socket module does not export it
SKF_AD_OFF = -0x1000
SKF_AD_PROTOCOL = 0
SKF_AD_PKTTYPE = 4
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
IPPROTO_TCP = 6
IPPROTO_UDP = 17
UDP_HEADER = 8
SNAPLEN = 128
"""Bytes kept per packet: the IPv4 (at most 60) or IPv6 (40) header and the TCP header
(at most 60), nothing of the payload; of a UDP datagram, past its 8-byte header, at least 46
bytes of the payload: a QUIC long header's version and connection IDs (47 bytes at most,
which only an IPv4 header with 40 bytes of options cuts short, by one)."""
HELLO_SNAPLEN = 4096
"""Bytes kept of a hello packet (``hello_filter``): the headers and the first 3.9 KiB or
more of the payload, more than a KEXINIT (OpenSSH 10's client's: about 1.6 KiB) or a
ServerHello with a post-quantum key share (about 1.2 KiB) takes."""
SSH_IDENTIFICATION = int.from_bytes(b"SSH-", "big")
SSH_MSG_KEXINIT = 20
TLS_HANDSHAKE_V3 = 0x1603
"""A TLS handshake record's first two bytes: content type 22, major version 3."""
TLS_CLIENT_HELLO, TLS_SERVER_HELLO = 1, 2
QUIC_LONG_HEADER = 0x80


class Protocol(StrEnum):
    """The transport protocol a capture filters on."""

    TCP = "tcp"
    UDP = "udp"

    @property
    def number(self) -> int:
        return IPPROTO_TCP if self is Protocol.TCP else IPPROTO_UDP


Label = str


@dataclass(frozen=True)
class Insn:
    """One instruction; ``jt``/``jf`` name labels (resolved to relative offsets)."""

    code: int
    k: int = 0
    jt: Label | None = None
    jf: Label | None = None


def _ld(size: int, offset: int) -> Insn:
    return Insn(BPF_LD | size | BPF_ABS, offset)


def _ld_ind(size: int, offset: int) -> Insn:
    return Insn(BPF_LD | size | BPF_IND, offset)


def _jeq(value: int, jt: Label | None, jf: Label | None = None) -> Insn:
    return Insn(BPF_JMP | BPF_JEQ | BPF_K, value, jt, jf)


def _jump(label: Label) -> Insn:
    """Unconditional jump, written as a conditional one whose both branches go to
    ``label`` (``BPF_JA`` takes its distance in ``k``, which ``assemble`` does not fill)."""
    return Insn(BPF_JMP | BPF_JEQ | BPF_K, 0, label, label)


def _ret(value: int) -> Insn:
    return Insn(BPF_RET | BPF_K, value)


def _alu(operation: int, value: int) -> Insn:
    return Insn(BPF_ALU | operation | BPF_K, value)


def assemble(program: list[Insn | Label]) -> list[tuple[int, int, int, int]]:
    """``(code, jt, jf, k)`` tuples, labels resolved; a missing jump target falls through
    to the next instruction (offset 0), as in cBPF."""
    positions: dict[Label, int] = {}
    instructions: list[Insn] = []
    for item in program:
        if isinstance(item, Insn):
            instructions.append(item)
        else:
            positions[item] = len(instructions)

    def offset(index: int, label: Label | None) -> int:
        if label is None:
            return 0
        distance = positions[label] - index - 1
        if not 0 <= distance <= 255:
            raise ValueError(f"jump to {label} out of range ({distance})")
        return distance

    return [
        (insn.code, offset(i, insn.jt), offset(i, insn.jf), insn.k & 0xFFFFFFFF)
        for i, insn in enumerate(instructions)
    ]


def _port_checks(offset: int, ports: tuple[int, ...], otherwise: Label) -> list[Insn | Label]:
    """Load the port at ``offset`` past the IP header (X): accept if it is one of
    ``ports``, else go to ``otherwise``."""
    checks: list[Insn | Label] = [_ld_ind(BPF_H, offset)]
    checks.extend(_jeq(port, "accept") for port in ports)
    checks.append(_jump(otherwise))
    return checks


def _address_check(
    addresses: Sequence[tuple[int, ...]], start: int, matched: Label, otherwise: Label
) -> list[Insn | Label]:
    """Go to ``matched`` if the address at ``start`` is one of ``addresses`` (each as
    32-bit big-endian words), else to ``otherwise``."""
    checks: list[Insn | Label] = []
    for number, words in enumerate(addresses):
        # A mismatched word goes on to the next address, the last address's to otherwise.
        next_address = f"{matched}_not_{number}" if number < len(addresses) - 1 else otherwise
        for index, word in enumerate(words):
            last = index == len(words) - 1
            checks += [
                _ld(BPF_W, start + 4 * index),
                _jeq(word, matched if last else None, next_address),
            ]
        if next_address != otherwise:
            checks.append(next_address)
    return checks


def _addresses(address: str | Sequence[str]) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """``address`` as one or more IP addresses of one IP version, duplicates dropped."""
    listed = [address] if isinstance(address, str) else list(address)
    if not listed:
        raise ValueError("no address to filter on")
    ips = list(dict.fromkeys(ipaddress.ip_address(item) for item in listed))
    if len({ip.version for ip in ips}) > 1:
        raise ValueError("addresses of both IP versions in one filter")
    return ips


def _program(
    protocol: Protocol,
    address: str | Sequence[str],
    ports: tuple[int, ...],
    link_header: int,
    skip_outgoing: bool,
    accepted: list[Insn | Label],
) -> list[tuple[int, int, int, int]]:
    """The program of ``tcp_filter`` or ``udp_filter``, which runs ``accepted`` on a packet
    it keeps (with X the IP header's length, under the label ``accept``); ``accepted`` ends
    in a return. TCP and UDP both start with the two ports."""
    if not ports:
        raise ValueError("no ports to filter on")
    ips = _addresses(address)
    ip = ips[0]
    base = link_header
    # The socket is bound to every protocol (packets the host sends reach only such
    # sockets), so the filter checks the network protocol itself.
    program: list[Insn | Label] = [
        _ld(BPF_H, SKF_AD_OFF + SKF_AD_PROTOCOL),
        _jeq(ETH_P_IP if ip.version == 4 else ETH_P_IPV6, "ip", "drop"),
        "ip",
    ]
    if skip_outgoing:
        program += [_ld(BPF_B, SKF_AD_OFF + SKF_AD_PKTTYPE), _jeq(PACKET_OUTGOING, "drop")]
    if ip.version == 4:
        words = [struct.unpack("!I", item.packed) for item in ips]
        source, destination = base + 12, base + 16
        program += [
            _ld(BPF_B, base + 9),
            _jeq(protocol.number, "transport", "drop"),
            "transport",
            _ld(BPF_H, base + 6),
            Insn(BPF_JMP | BPF_JSET | BPF_K, 0x1FFF, "drop"),
            Insn(BPF_LDX | BPF_B | BPF_MSH, base),  # X = IPv4 header length
        ]
    else:
        words = [struct.unpack("!4I", item.packed) for item in ips]
        source, destination = base + 8, base + 24
        program += [
            _ld(BPF_B, base + 6),
            _jeq(protocol.number, "transport", "drop"),
            "transport",
            Insn(BPF_LDX | BPF_W | BPF_IMM, 40),
        ]  # X = IPv6 header length
    program += [
        *_address_check(words, source, "from_target", "check_destination"),
        "from_target",
        *_port_checks(base + 0, ports, "check_destination"),
        "check_destination",
        *_address_check(words, destination, "to_target", "drop"),
        "to_target",
        *_port_checks(base + 2, ports, "drop"),
        "accept",
        *accepted,
        "drop",
        _ret(0),
    ]
    return assemble(program)


def tcp_filter(
    address: str | Sequence[str],
    ports: tuple[int, ...],
    *,
    link_header: int = 14,
    skip_outgoing: bool = False,
) -> list[tuple[int, int, int, int]]:
    """TCP packets between this host and ``address`` on one of its ``ports``; ``address``
    may be several addresses of one IP version (the devices of a fleet: a mode that
    connects to each of them is counted whole).

    A packet is kept when its source is a target on one of the ports, or else its
    destination is (on loopback both addresses are the target). ``skip_outgoing`` drops
    the copies the loopback interface shows twice (once leaving, once arriving). IPv4
    non-first fragments carry no TCP header and are dropped; IPv6 is matched when TCP is
    the first next header (Linux sends TCP without extension headers).
    """
    return _program(Protocol.TCP, address, ports, link_header, skip_outgoing, [_ret(SNAPLEN)])


def udp_filter(
    address: str | Sequence[str],
    ports: tuple[int, ...],
    *,
    link_header: int = 14,
    skip_outgoing: bool = False,
) -> list[tuple[int, int, int, int]]:
    """UDP datagrams between this host and ``address`` on one of its ``ports`` (QUIC),
    with the same address, port, loopback and fragment rules as ``tcp_filter``: a
    non-first IPv4 fragment is dropped (QUIC forbids fragmentation: RFC 9000 section 14),
    and IPv6 is matched when UDP is the first next header."""
    return _program(Protocol.UDP, address, ports, link_header, skip_outgoing, [_ret(SNAPLEN)])


def filter_for(
    protocol: Protocol,
    address: str | Sequence[str],
    ports: tuple[int, ...],
    *,
    link_header: int = 14,
    skip_outgoing: bool = False,
) -> list[tuple[int, int, int, int]]:
    """The counting filter of ``protocol``: ``tcp_filter`` or ``udp_filter``."""
    build = tcp_filter if protocol is Protocol.TCP else udp_filter
    return build(address, ports, link_header=link_header, skip_outgoing=skip_outgoing)


def hello_filter(
    address: str | Sequence[str],
    ports: tuple[int, ...],
    *,
    link_header: int = 14,
    skip_outgoing: bool = False,
) -> list[tuple[int, int, int, int]]:
    """The packets of ``tcp_filter`` whose TCP payload starts a handshake, up to
    ``HELLO_SNAPLEN`` bytes: an SSH identification line (``SSH-``, perhaps followed by the
    KEXINIT), an unencrypted SSH binary packet of message 20 (KEXINIT: a packet length
    under 64 KiB, its first two bytes zero, and byte 5 is 20), or a TLS handshake record
    whose first message is a ClientHello or ServerHello (bytes 0x16 0x03, byte 5 is 1 or
    2). Every other packet (pure ACKs: loading their payload ends the program) is dropped
    before anything is copied. Encrypted bytes pass by chance with a probability of about
    2^-24 per packet (a segment starting mid-record); the parser rejects them.
    """
    base = link_header
    payload_checks: list[Insn | Label] = [
        _ld_ind(BPF_B, base + 12),  # TCP data offset, in the high nibble
        _alu(BPF_AND, 0xF0),
        _alu(BPF_RSH, 2),  # A = TCP header length
        Insn(BPF_ALU | BPF_ADD | BPF_X),  # A += IP header length (X)
        Insn(BPF_MISC | BPF_TAX),  # X = offset of the payload past the link header
        _ld_ind(BPF_W, base),  # the payload's first four bytes: none ends the program
        _jeq(SSH_IDENTIFICATION, "keep"),
        _alu(BPF_RSH, 16),
        _jeq(TLS_HANDSHAKE_V3, "tls", None),
        _jeq(0, "ssh_packet", "drop"),
        "tls",
        _ld_ind(BPF_B, base + 5),
        _jeq(TLS_CLIENT_HELLO, "keep"),
        _jeq(TLS_SERVER_HELLO, "keep", "drop"),
        "ssh_packet",
        _ld_ind(BPF_B, base + 5),
        _jeq(SSH_MSG_KEXINIT, "keep", "drop"),
        "keep",
        _ret(HELLO_SNAPLEN),
    ]
    return _program(Protocol.TCP, address, ports, link_header, skip_outgoing, payload_checks)


def quic_hello_filter(
    address: str | Sequence[str],
    ports: tuple[int, ...],
    *,
    link_header: int = 14,
    skip_outgoing: bool = False,
) -> list[tuple[int, int, int, int]]:
    """The datagrams of ``udp_filter`` whose payload starts with a QUIC long header (first
    bit set: Initial, 0-RTT, Handshake, Retry, Version Negotiation), up to
    ``HELLO_SNAPLEN`` bytes: more than a client's first datagram (1200 bytes or a little
    more) or the server's first flight per datagram. 1-RTT packets, the bulk of a
    connection, and empty datagrams are dropped before anything is copied."""
    long_header_checks: list[Insn | Label] = [
        _ld_ind(BPF_B, link_header + UDP_HEADER),  # the payload's first byte
        Insn(BPF_JMP | BPF_JSET | BPF_K, QUIC_LONG_HEADER, "keep", "drop"),
        "keep",
        _ret(HELLO_SNAPLEN),
    ]
    return _program(Protocol.UDP, address, ports, link_header, skip_outgoing, long_header_checks)


def describe(
    address: str | Sequence[str], ports: tuple[int, ...], protocol: Protocol = Protocol.TCP
) -> str:
    """The filter in tcpdump syntax, for results.json."""
    port_expr = " or ".join(f"port {port}" for port in ports)
    ips = _addresses(address)
    if len(ips) == 1:
        return f"{protocol} and host {ips[0]} and ({port_expr})"
    host_expr = " or ".join(f"host {ip}" for ip in ips)
    return f"{protocol} and ({host_expr}) and ({port_expr})"


def attach(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    """``SO_ATTACH_FILTER`` with a ``struct sock_fprog`` pointing at the instructions; the
    kernel copies the program, so the buffer only has to live during the call."""
    raw = b"".join(struct.pack("HBBI", *insn) for insn in program)
    buffer = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("HL", len(program), ctypes.addressof(buffer))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
