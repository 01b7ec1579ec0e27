"""A ``TPACKET_V2`` receive ring on an ``AF_PACKET`` socket (``PACKET_RX_RING``).

The kernel copies each packet that passes the filter (its headers only) into a frame of a
memory-mapped ring and sets the frame's status; the reader walks the frames and hands
them back. Unlike the socket's receive queue, the ring is not charged the packet's whole
buffer (a 64 KiB GRO aggregate would fill the default 208 KiB queue in three packets and
drop the rest), needs no system call per packet, and the kernel counts what it could not
place (``PACKET_STATISTICS``).
"""

import mmap
import socket
import struct

ETH_P_ALL = 0x0003
"""The protocol a packet socket binds to: every one (the filter picks)."""
SOL_PACKET = 263
PACKET_RX_RING = 5
PACKET_STATISTICS = 6
PACKET_VERSION = 10
PACKET_VNET_HDR = 15
TPACKET_V2 = 1
TP_STATUS_KERNEL = 0
TP_STATUS_USER = 1
FRAME_SIZE = 256
"""tpacket2_hdr, sockaddr_ll, the virtio-net header and the filter's 128-byte snap fit."""
BLOCK_SIZE = 1 << 20
BLOCKS = 8
FRAMES = BLOCK_SIZE // FRAME_SIZE * BLOCKS
"""32768 frames (8 MiB): several seconds of a saturated gigabit link's packets between
two reads of the capture thread."""
VNET_HDR_LEN = 10  # struct virtio_net_hdr, placed right before the link-layer header
HEADER = struct.Struct("=IIIHHII")
"""tp_status, tp_len, tp_snaplen, tp_mac, tp_net, tp_sec, tp_nsec: the kernel's timestamp
of the packet (CLOCK_REALTIME), taken as it passed the interface."""
STATUS = struct.Struct("=I")
GSO_SIZE = struct.Struct("=H")


def enable_vnet_header(sock: socket.socket) -> None:
    """Ask for the virtio-net header in front of each packet: it carries the GSO segment
    size of aggregated packets. Must precede the ring setup."""
    sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)


def map_ring(
    sock: socket.socket,
    frame_size: int = FRAME_SIZE,
    block_size: int = BLOCK_SIZE,
    blocks: int = BLOCKS,
) -> mmap.mmap:
    """The ring of ``blocks`` blocks of ``block_size`` bytes (a multiple of the page size),
    each cut into as many ``frame_size``-byte frames (a multiple of 16) as it holds."""
    sock.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
    frames = block_size // frame_size * blocks
    request = struct.pack("IIII", block_size, blocks, frame_size, frames)
    sock.setsockopt(SOL_PACKET, PACKET_RX_RING, request)
    return mmap.mmap(
        sock.fileno(), block_size * blocks, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE
    )


def drops(sock: socket.socket) -> int:
    """Packets lost since the last call (``struct tpacket_stats``; reading resets it)."""
    _, dropped = struct.unpack("II", sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    return int(dropped)
