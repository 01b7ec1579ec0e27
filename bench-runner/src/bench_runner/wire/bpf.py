"""Classic BPF (``SO_ATTACH_FILTER``) programs selecting the TCP traffic of a target.

The kernel runs the program on every packet of the bound interface before anything is
copied to the runner, so only the mode's own connections (target address, one of the
mode's ports, either direction) ever reach the capture ring, trimmed to their headers.
Offsets are from the start of the frame as an ``AF_PACKET``/``SOCK_RAW`` socket sees it:
``link_header`` bytes of link-layer header (14 on Ethernet and loopback), then IP.
"""

import ctypes
import ipaddress
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass

# Instruction classes and modes (linux/filter.h, linux/bpf_common.h).
BPF_LD, BPF_LDX, BPF_JMP, BPF_RET = 0x00, 0x01, 0x05, 0x06
BPF_IMM = 0x00
BPF_W, BPF_H, BPF_B = 0x00, 0x08, 0x10
BPF_ABS, BPF_IND, BPF_MSH, BPF_K = 0x20, 0x40, 0xA0, 0x00
BPF_JEQ, BPF_JSET = 0x10, 0x40
SO_ATTACH_FILTER = 26  # asm-generic/socket.h; the socket module does not export it
SKF_AD_OFF = -0x1000
SKF_AD_PROTOCOL = 0
SKF_AD_PKTTYPE = 4
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
IPPROTO_TCP = 6
SNAPLEN = 128
"""Bytes kept per packet: the IPv4 (at most 60) or IPv6 (40) header and the TCP header
(at most 60), nothing of the payload."""

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
            _jeq(IPPROTO_TCP, "tcp", "drop"),
            "tcp",
            _ld(BPF_H, base + 6),
            Insn(BPF_JMP | BPF_JSET | BPF_K, 0x1FFF, "drop"),
            Insn(BPF_LDX | BPF_B | BPF_MSH, base),  # X = IPv4 header length
        ]
    else:
        words = [struct.unpack("!4I", item.packed) for item in ips]
        source, destination = base + 8, base + 24
        program += [
            _ld(BPF_B, base + 6),
            _jeq(IPPROTO_TCP, "tcp", "drop"),
            "tcp",
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
        _ret(SNAPLEN),
        "drop",
        _ret(0),
    ]
    return assemble(program)


def describe(address: str | Sequence[str], ports: tuple[int, ...]) -> str:
    """The filter in tcpdump syntax, for results.json."""
    port_expr = " or ".join(f"port {port}" for port in ports)
    ips = _addresses(address)
    if len(ips) == 1:
        return f"tcp and host {ips[0]} and ({port_expr})"
    host_expr = " or ".join(f"host {ip}" for ip in ips)
    return f"tcp and ({host_expr}) and ({port_expr})"


def attach(sock: socket.socket, program: list[tuple[int, int, int, int]]) -> None:
    """``SO_ATTACH_FILTER`` with a ``struct sock_fprog`` pointing at the instructions; the
    kernel copies the program, so the buffer only has to live during the call."""
    raw = b"".join(struct.pack("HBBI", *insn) for insn in program)
    buffer = ctypes.create_string_buffer(raw, len(raw))
    fprog = struct.pack("HL", len(program), ctypes.addressof(buffer))
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
