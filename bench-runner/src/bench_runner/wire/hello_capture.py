"""The handshakes' packets: a second, small packet socket beside the counting one.

Its filter (``bpf.hello_filter``) keeps only the packets of the mode's connections whose
payload starts an SSH or TLS handshake (identification line, KEXINIT, ClientHello,
ServerHello), four or so per connection, with their first ``HELLO_SNAPLEN`` bytes; for QUIC
(``bpf.quic_hello_filter``) the datagrams that start with a long header, a handful per
connection, each handed on as one ``HelloPacket`` (a GSO aggregate cut into its datagrams
where the kernel says their size: ``VNET_UDP_MIN_KERNEL``). The
kernel copies them into a ring of its own; nothing reads it while an iteration runs. The
frames are copied out (a few bytes objects each) when the mode is over, or by the counting
capture's thread when half the ring is filled (a mode of many connections), and decoded
after the mode (``handshakes.decode``).
"""

import mmap
import socket
from dataclasses import dataclass
from typing import NamedTuple

from bench_runner.wire import bpf, ring
from bench_runner.wire.bpf import Protocol

FRAME_SIZE = 4224
"""tpacket2_hdr, sockaddr_ll and the link header (80 bytes to the network header, 90 with
the virtio-net header) and the filter's 4096-byte snap, rounded up to 16."""
BLOCK_SIZE = 128 << 10
BLOCKS = 32
FRAMES_PER_BLOCK = BLOCK_SIZE // FRAME_SIZE
FRAMES = FRAMES_PER_BLOCK * BLOCKS
"""992 frames (4 MiB): some 240 connections' hellos between two drains."""
BACKLOG = FRAMES // 2


class ConnectionKey(NamedTuple):
    """A connection as the runner sees it: the target's address and port, the runner's
    port; for QUIC also the client's source connection ID (``quic_handshakes``: one UDP
    socket may carry several connections)."""

    address: bytes
    port: int
    own_port: int
    connection_id: bytes = b""


@dataclass(frozen=True)
class HelloPacket:
    """One kept packet: its connection, direction, TCP sequence number (0 for a UDP
    datagram), the payload bytes kept and the payload's whole length."""

    connection: ConnectionKey
    outgoing: bool
    seq: int
    payload: bytes
    length: int

    @property
    def cut(self) -> bool:
        """The capture kept less of the payload than the packet carried."""
        return len(self.payload) < self.length


def frame_offset(sequence: int) -> int:
    """Where frame ``sequence`` lies in the ring: frames do not span blocks."""
    index = sequence % FRAMES
    return index // FRAMES_PER_BLOCK * BLOCK_SIZE + index % FRAMES_PER_BLOCK * FRAME_SIZE


class HelloCapture:
    """The handshake packets between this host and ``addresses`` on ``ports``, through
    ``interface`` (whose link header is ``link_header`` bytes). ``vnet``: ask the kernel
    for the virtio-net header, whose segment size cuts a UDP GSO aggregate into its
    datagrams (only where the kernel can write it for UDP: a packet it cannot describe
    would be dropped)."""

    def __init__(
        self,
        addresses: tuple[str, ...],
        ports: tuple[int, ...],
        interface: str,
        link_header: int,
        ipv6: bool,
        protocol: Protocol = Protocol.TCP,
        vnet: bool = False,
    ) -> None:
        build = bpf.hello_filter if protocol is Protocol.TCP else bpf.quic_hello_filter
        program = build(addresses, ports, link_header=link_header, skip_outgoing=interface == "lo")
        # As the counting socket: protocol 0 until the filter is attached (module
        # capture's comment), so no unfiltered packet is ever queued.
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        try:
            bpf.attach(self._sock, program)
            if vnet:
                ring.enable_vnet_header(self._sock)
            self._ring = ring.map_ring(self._sock, FRAME_SIZE, BLOCK_SIZE, BLOCKS)
            self._sock.bind((interface, ring.ETH_P_ALL))
        except OSError:
            self._sock.close()
            raise
        self._ports = frozenset(ports)
        self._ipv6 = ipv6
        self._udp = protocol is Protocol.UDP
        self._vnet = vnet
        self._sequence = 0
        self._packets: list[HelloPacket] = []
        self._drops = 0

    def backlog_reached(self) -> bool:
        """Whether half the ring is filled: the frame ``BACKLOG`` past the next unread one
        (frames read go back to the kernel, so a filled frame there is this lap's)."""
        offset = frame_offset(self._sequence + BACKLOG)
        return bool(ring.STATUS.unpack_from(self._ring, offset)[0] & ring.TP_STATUS_USER)

    def drain(self) -> None:
        """Copy every filled frame's packet out and hand the frame back."""
        frames = self._ring
        while True:
            offset = frame_offset(self._sequence)
            if not ring.STATUS.unpack_from(frames, offset)[0] & ring.TP_STATUS_USER:
                return
            _, length, snaplen, mac, net, _, _ = ring.HEADER.unpack_from(frames, offset)
            packet = self._packet(frames, offset + net, snaplen - (net - mac), length - (net - mac))
            if packet is not None and self._udp:
                self._packets.extend(
                    self._datagrams(packet, self._segment_size(frames, offset + mac))
                )
            elif packet is not None:
                self._packets.append(packet)
            ring.STATUS.pack_into(frames, offset, ring.TP_STATUS_KERNEL)
            self._sequence += 1

    def _packet(self, frames: mmap.mmap, start: int, kept: int, whole: int) -> HelloPacket | None:
        """The packet at ``start``: ``kept`` of its ``whole`` bytes from the IP header."""
        if self._ipv6:
            ip_header, size = 40, 16
            ip_length = (frames[start + 4] << 8 | frames[start + 5]) + ip_header
            source, destination = start + 8, start + 24
        else:
            ip_header, size = (frames[start] & 0x0F) * 4, 4
            ip_length = frames[start + 2] << 8 | frames[start + 3]
            source, destination = start + 12, start + 16
        if ip_length <= ip_header:  # a BIG TCP aggregate: no length field, the frame's
            ip_length = whole
        transport = start + ip_header
        source_port = frames[transport] << 8 | frames[transport + 1]
        destination_port = frames[transport + 2] << 8 | frames[transport + 3]
        outgoing = destination_port in self._ports
        if self._udp:
            headers = ip_header + bpf.UDP_HEADER
            seq = 0
        else:
            headers = ip_header + (frames[transport + 12] >> 4) * 4
            seq = int.from_bytes(frames[transport + 4 : transport + 8], "big")
        if headers > kept:
            return None
        remote = destination if outgoing else source
        return HelloPacket(
            connection=ConnectionKey(
                bytes(frames[remote : remote + size]),
                destination_port if outgoing else source_port,
                source_port if outgoing else destination_port,
            ),
            outgoing=outgoing,
            seq=seq,
            payload=bytes(frames[start + headers : start + kept]),
            length=ip_length - headers,
        )

    def _segment_size(self, frames: mmap.mmap, mac: int) -> int:
        """The datagram size of a GSO aggregate, from the virtio-net header in front of the
        link header at ``mac``; 0 for a single datagram, or when the header is not asked."""
        if not self._vnet:
            return 0
        vnet_header = mac - ring.VNET_HDR_LEN
        if frames[vnet_header + 1] == 0:  # gso_type: none
            return 0
        return int(ring.GSO_SIZE.unpack_from(frames, vnet_header + 4)[0])

    @staticmethod
    def _datagrams(packet: HelloPacket, segment_size: int) -> list[HelloPacket]:
        """The datagrams of a GSO aggregate (each ``segment_size`` bytes, the last one
        shorter), or the packet itself; a datagram the snap cut keeps the bytes held."""
        if segment_size <= 0 or packet.length <= segment_size:
            return [packet]
        return [
            HelloPacket(
                packet.connection,
                packet.outgoing,
                0,
                packet.payload[start : start + segment_size],
                min(segment_size, packet.length - start),
            )
            for start in range(0, min(packet.length, len(packet.payload)), segment_size)
        ]

    def finish(self) -> list[HelloPacket]:
        """Every packet kept since the capture opened, in arrival order."""
        self.drain()
        self._drops += ring.drops(self._sock)
        return self._packets

    @property
    def drops(self) -> int:
        """Packets the kernel matched but could not place (ring full)."""
        return self._drops

    def close(self) -> None:
        self._ring.close()
        self._sock.close()
