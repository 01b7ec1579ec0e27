"""Hand-made IPv4/IPv6 TCP packets and UDP datagrams for the filter and tally tests."""

import ipaddress
import struct

ETHERNET = bytes(12) + b"\x08\x00"
"""A 14-byte Ethernet header (addresses zero), as an AF_PACKET SOCK_RAW socket sees it."""


def tcp_header(
    source_port: int, destination_port: int, flags: int = 0x18, options: bytes = b""
) -> bytes:
    words = 5 + len(options) // 4
    return (
        struct.pack(
            "!HHIIBBHHH", source_port, destination_port, 1, 1, words << 4, flags, 65535, 0, 0
        )
        + options
    )


def ipv4_tcp(
    source: str,
    destination: str,
    source_port: int,
    destination_port: int,
    *,
    payload: bytes = b"",
    protocol: int = 6,
    fragment_offset: int = 0,
    options: bytes = b"",
    flags: int = 0x18,
    tcp_options: bytes = b"",
) -> bytes:
    tcp = tcp_header(source_port, destination_port, flags, tcp_options) + payload
    header_words = 5 + len(options) // 4
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x40 | header_words,
        0,
        header_words * 4 + len(tcp),
        0,
        fragment_offset,
        64,
        protocol,
        0,
        ipaddress.IPv4Address(source).packed,
        ipaddress.IPv4Address(destination).packed,
    )
    return header + options + tcp


def ipv6_tcp(
    source: str, destination: str, source_port: int, destination_port: int, *, payload: bytes = b""
) -> bytes:
    tcp = tcp_header(source_port, destination_port) + payload
    header = struct.pack(
        "!IHBB16s16s",
        6 << 28,
        len(tcp),
        6,
        64,
        ipaddress.IPv6Address(source).packed,
        ipaddress.IPv6Address(destination).packed,
    )
    return header + tcp


def ipv4_udp(
    source: str,
    destination: str,
    source_port: int,
    destination_port: int,
    *,
    payload: bytes = b"",
    fragment_offset: int = 0,
) -> bytes:
    udp = struct.pack("!HHHH", source_port, destination_port, 8 + len(payload), 0) + payload
    header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(udp),
        0,
        fragment_offset,
        64,
        17,
        0,
        ipaddress.IPv4Address(source).packed,
        ipaddress.IPv4Address(destination).packed,
    )
    return header + udp


def ipv6_udp(
    source: str, destination: str, source_port: int, destination_port: int, *, payload: bytes = b""
) -> bytes:
    udp = struct.pack("!HHHH", source_port, destination_port, 8 + len(payload), 0) + payload
    header = struct.pack(
        "!IHBB16s16s",
        6 << 28,
        len(udp),
        17,
        64,
        ipaddress.IPv6Address(source).packed,
        ipaddress.IPv6Address(destination).packed,
    )
    return header + udp
