"""The capture thread: reads the ring, keeps a ``Tally`` per iteration.

``WireCapture.mark()`` is the iteration boundary. It does not parse anything: it only
notes how many frames the kernel has filled so far (a status word per frame), because the
boundary sits between two measured iterations and whatever it costs counts as harness
overhead. Everything the client sent or received before ``mark()`` is in the ring by then
(the kernel copies a packet to packet sockets before the sender's system call returns and
before TCP delivers a received one), so nothing of an iteration is counted in the next one.
Frames are parsed later, in order, switching to a new ``Tally`` at each boundary: by
``finish()`` once the mode's iterations are over, and by the capture thread only when a
bulk transfer has left ``DRAIN_BACKLOG`` frames unparsed. The mark that ends an iteration's
segment carries the iteration's span: its timeline keeps only the packets stamped inside
it, so packets parsed before the span is known (a bulk transfer's, by the thread) wait,
as a few integers each, until the mark brings it. The thread looks once per
``PACE_S`` (one status word) and is never woken by a packet: parsing while an iteration
runs takes the GIL from the measuring thread. The ring (32768 frames) holds the backlog
plus more than arrives in ``PACE_S``, even at 10 Gbit/s of full-size frames.

Beside it a second socket keeps the handshakes' packets (``hello_capture``), from the
capture's opening to ``finish()``: the session's setup and warm-up too. The same thread
copies them out only when half of their ring is filled.

Each TCP packet is also classified for loss recovery (``recovery``: a retransmission, a
timeout, a D-SACK) by one tracker that sees the mode's packets in capture order across its
iterations; the tally counts what it found and the time split gives recovery its part.

A QUIC mode's capture (``Protocol.UDP``) keeps the UDP datagrams of the mode's ports with the
first bytes of their payload, which tell a connection's start and what counts as a send
(``quic_flows``); the time split reads them as events without TCP's flags, sequence numbers
or pure ACKs (``timeline``).
"""

import ipaddress
import mmap
import os
import platform
import select
import socket
import struct
import threading
from array import array
from collections import deque
from collections.abc import Sequence
from pathlib import Path

import psutil

from bench_runner.roundtrips import earliest_answer_ns
from bench_runner.wire import bpf, ring
from bench_runner.wire.bpf import Protocol
from bench_runner.wire.hello_capture import HelloCapture, HelloPacket
from bench_runner.wire.model import WireIteration
from bench_runner.wire.quic_flows import QuicFlows
from bench_runner.wire.recovery import (
    NO_OPTIONS,
    RecoveryTracker,
    TcpOptions,
    parse_options,
)
from bench_runner.wire.tally import Tally, wire_segments
from bench_runner.wire.timeline import HandshakeRtts, Packet, Span, Timeline, TimeSplit

ARPHRD_LINK_HEADER = {1: 14, 772: 14, 65534: 0}
"""Link-layer header length by ``/sys/class/net/<if>/type``: Ethernet, loopback, none
(tun, WireGuard)."""
TCP_NUMBERS = struct.Struct("!II")
"""Sequence and acknowledgement numbers, 4 bytes into the TCP header."""
TIMESTAMP_ONLY = b"\x01\x01\x08\x0a"
"""NOP, NOP, then the timestamp option: the options of almost every segment Linux sends
once a connection is open (12 bytes), read without a parse."""
TSVAL = struct.Struct("!I")
TCP_BASE_HEADER = 20
PACE_S = 0.02
DRAIN_BACKLOG = ring.FRAMES // 4
JOIN_TIMEOUT_S = 5.0
PACKET_FIELDS = 8
"""A waiting packet's integers in ``Segment``: a ``Packet``'s fields in order."""
VNET_MIN_KERNEL = (5, 8)
"""First kernel that writes the virtio-net header into ring frames (tpacket_rcv)."""
VNET_UDP_MIN_KERNEL = (6, 2)
"""First kernel whose virtio-net header describes a UDP GSO aggregate (``GSO_UDP_L4``);
an older one drops from the ring every packet whose header it cannot write, so a UDP
capture asks for the header only from this one on."""


class CaptureUnavailableError(Exception):
    """No capture is possible here; the message is the reason recorded in results."""


def _kernel_at_least(version: tuple[int, int]) -> bool:
    parts = platform.release().split(".")
    try:
        return (int(parts[0]), int(parts[1].split("-")[0])) >= version
    except (IndexError, ValueError):
        return False


def route_interface(address: str) -> str:
    """The interface the kernel routes ``address`` through (the local address a UDP
    socket connected to it gets; nothing is sent)."""
    family = socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        probe.connect((address, 9))
        local = probe.getsockname()[0]
    for name, addresses in psutil.net_if_addrs().items():
        if any(entry.address.split("%")[0] == local for entry in addresses):
            return name
    raise CaptureUnavailableError(
        f"no interface holds the local address {local} used for {address}"
    )


def link_header_length(interface: str) -> int:
    try:
        kind = int(Path(f"/sys/class/net/{interface}/type").read_text().strip())
    except (OSError, ValueError) as exc:
        raise CaptureUnavailableError(f"link type of {interface} unknown: {exc}") from exc
    if kind not in ARPHRD_LINK_HEADER:
        raise CaptureUnavailableError(f"{interface}: link type {kind} not supported")
    return ARPHRD_LINK_HEADER[kind]


class Segment:
    """The traffic between two ``mark()`` calls: its counts and, when it is an iteration's,
    its timeline. ``tcp``: whether loss recovery is counted."""

    __slots__ = ("_handshakes", "_rtt_ns", "_waiting", "tally", "timeline")

    def __init__(self, rtt_ns: int, handshakes: HandshakeRtts, *, tcp: bool = True) -> None:
        self.tally = Tally(earliest_answer_ns(rtt_ns), recovery=tcp)
        self.timeline: Timeline | None = None
        self._rtt_ns = rtt_ns
        self._handshakes = handshakes
        self._waiting: array[int] | None = array("q")
        """Packets parsed before the mark ending the segment said its span, field by
        field; None once it has."""

    def add(self, packet: Packet) -> None:
        if self._waiting is not None:
            self._waiting.extend(
                (
                    packet.time_ns,
                    packet.outgoing,
                    packet.flags,
                    packet.payload,
                    packet.seq,
                    packet.ack,
                    packet.connection,
                    packet.recovery,
                )
            )
        elif self.timeline is not None:
            self.timeline.add(packet)
        else:
            self._handshakes.add(packet)

    def bind(self, span: Span | None) -> None:
        """The segment's span (None between iterations: its packets only teach the
        handshakes' RTTs); the packets parsed before are fed now. Once only."""
        if self._waiting is None:
            return
        waiting, self._waiting = self._waiting, None
        if span is not None:
            self.timeline = Timeline(self._rtt_ns, span, self._handshakes)
        for at in range(0, len(waiting), PACKET_FIELDS):
            time_ns, outgoing, *rest = waiting[at : at + PACKET_FIELDS]
            self.add(Packet(time_ns, bool(outgoing), *rest))

    def counts(self) -> WireIteration:
        return self.tally.result()

    def split(self) -> TimeSplit | None:
        """Where the iteration's time went; None for a segment without a span."""
        return self.timeline.split() if self.timeline is not None else None


class WireCapture:
    """Counts and times the TCP (or, with ``Protocol.UDP``, the QUIC) traffic between this
    host and ``address`` on ``ports``; ``rtt_ns`` is the verified RTT the timeline splits
    waits with. ``address`` may be several addresses (a fleet's devices), all routed through
    one interface."""

    def __init__(
        self,
        address: str | tuple[str, ...],
        ports: tuple[int, ...],
        rtt_ns: int,
        protocol: Protocol = Protocol.TCP,
    ) -> None:
        if not hasattr(socket, "AF_PACKET"):
            raise CaptureUnavailableError("AF_PACKET sockets need Linux")
        addresses = (address,) if isinstance(address, str) else address
        self.address = addresses[0]
        self.addresses = addresses
        self.ports = ports
        self.protocol = protocol
        self.interface = route_interface(addresses[0])
        elsewhere = sorted({route_interface(other) for other in addresses[1:]} - {self.interface})
        if elsewhere:
            raise CaptureUnavailableError(
                f"the targets are routed through {self.interface} and {', '.join(elsewhere)}: "
                "one capture watches one interface"
            )
        link_header = link_header_length(self.interface)
        try:
            self.filter = bpf.describe(addresses, ports, protocol)
            program = bpf.filter_for(
                protocol,
                addresses,
                ports,
                link_header=link_header,
                skip_outgoing=self.interface == "lo",
            )
        except ValueError as exc:  # mixed IP versions, or too many addresses for one program
            raise CaptureUnavailableError(f"capture filter: {exc}") from exc
        ipv6 = ipaddress.ip_address(addresses[0]).version == 6
        try:
            # Protocol 0: nothing is queued before the filter is attached and bind() names
            # the protocol, so no unfiltered packet ever reaches the ring. bind() then takes
            # every protocol: the packets this host sends reach only such sockets.
            self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        except PermissionError as exc:
            raise CaptureUnavailableError(
                "AF_PACKET socket not permitted: the runner lacks CAP_NET_RAW (run it in its "
                f"container, which has it by default, or grant cap_net_raw): {exc}"
            ) from exc
        try:
            bpf.attach(self._sock, program)
            self.segments_known = _kernel_at_least(
                VNET_MIN_KERNEL if protocol is Protocol.TCP else VNET_UDP_MIN_KERNEL
            )
            if self.segments_known:
                ring.enable_vnet_header(self._sock)
            self._ring = ring.map_ring(self._sock)
            self._sock.bind((self.interface, ring.ETH_P_ALL))
        except OSError as exc:
            self._sock.close()
            raise CaptureUnavailableError(f"packet capture on {self.interface}: {exc}") from exc
        self._ipv6 = ipv6
        self._hellos: HelloCapture | None = None
        self.hello_error: str | None = None
        """Why the handshakes' packets are not captured (their socket failed)."""
        try:
            self._hellos = HelloCapture(
                addresses,
                ports,
                self.interface,
                link_header,
                ipv6,
                protocol,
                vnet=protocol is Protocol.UDP and self.segments_known,
            )
        except OSError as exc:
            self.hello_error = f"handshake capture on {self.interface}: {exc}"
        self._port_set = frozenset(ports)
        self._flows = QuicFlows() if protocol is Protocol.UDP else None
        self._parsed = 0  # frame sequence numbers: the next frame to parse ...
        self._seen = 0  # ... and how far mark() has found frames filled
        # Where each segment ends (a frame sequence number) and its iteration's span.
        self._boundaries: deque[tuple[int, Span | None]] = deque()
        self._rtt_ns = rtt_ns
        self._handshakes = HandshakeRtts()
        self._recovery = RecoveryTracker(rtt_ns) if protocol is Protocol.TCP else None
        self._segments: list[Segment] = []
        self._segment = self._new_segment()
        self._drops = 0
        self._wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._lock = threading.Lock()
        self._hello_lock = threading.Lock()
        """The hellos' own: copying them out never holds up ``mark()``."""
        self._stopping = False
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="wire-capture", daemon=True)
        self._thread.start()

    def _new_segment(self) -> Segment:
        return Segment(self._rtt_ns, self._handshakes, tcp=self._recovery is not None)

    @property
    def drops(self) -> int:
        return self._drops

    def segments_caveat(self) -> str | None:
        """Why ``segments_*`` and ``ip_bytes_*`` are unknown here; None when they are known."""
        if self.segments_known:
            return None
        if self.protocol is Protocol.UDP:
            return (
                "this kernel does not report UDP GSO segment sizes to packet sockets (Linux "
                "6.2 and later do): segments and ip_bytes are null, packets are the "
                "aggregates the socket saw"
            )
        return (
            "this kernel does not report GSO segment sizes to packet sockets: segments and "
            "ip_bytes are null, packets are the aggregates the socket saw"
        )

    def mark(self, span: Span | None = None) -> int:
        """End the current segment of traffic at the frames filled so far; the index of
        that segment in ``finish()``'s list. ``span``: the iteration the segment holds (None
        for the traffic between iterations)."""
        with self._lock:
            sequence = max(self._seen, self._parsed)
            status_at = ring.STATUS.unpack_from
            while (
                sequence - self._parsed < ring.FRAMES
                and status_at(self._ring, sequence % ring.FRAMES * ring.FRAME_SIZE)[0]
                & ring.TP_STATUS_USER
            ):
                sequence += 1
            self._seen = sequence
            self._boundaries.append((sequence, span))
            return len(self._segments) + len(self._boundaries) - 1

    def finish(self) -> list[Segment] | None:
        """Every segment ``mark()`` ended, in order; None if the capture thread failed
        (``error`` says why)."""
        with self._lock:
            self._drain()
            self._drops += ring.drops(self._sock)
        if self.error is not None:
            return None
        return self._segments

    def hellos(self) -> tuple[list[HelloPacket] | None, int]:
        """The handshakes' packets since the capture opened and the ones the kernel could
        not place; None when they were not captured (``hello_error`` says why) or the
        thread failed (``error``)."""
        if self._hellos is None:
            return None, 0
        with self._hello_lock:
            packets = self._hellos.finish()
        return (None if self.error is not None else packets), self._hellos.drops

    def close(self) -> None:
        self._stopping = True
        os.eventfd_write(self._wake, 1)
        self._thread.join(JOIN_TIMEOUT_S)
        self._ring.close()
        self._sock.close()
        if self._hellos is not None:
            self._hellos.close()
        os.close(self._wake)

    def _run(self) -> None:
        pacer = select.poll()
        pacer.register(self._wake, select.POLLIN)  # close() wakes us at once
        try:
            while not self._stopping:
                if self._backlog_reached():
                    with self._lock:
                        self._drain()
                if self._hellos is not None and self._hellos.backlog_reached():
                    with self._hello_lock:
                        self._hellos.drain()
                pacer.poll(PACE_S * 1000)
        except Exception as exc:  # the reason goes to results; the run must not die of it
            self.error = f"capture thread: {type(exc).__name__}: {exc}"

    def _backlog_reached(self) -> bool:
        """Whether the frame DRAIN_BACKLOG past the next unparsed one is filled: parsed
        frames go back to the kernel, so a filled frame there is this lap's."""
        offset = (self._parsed + DRAIN_BACKLOG) % ring.FRAMES * ring.FRAME_SIZE
        return bool(ring.STATUS.unpack_from(self._ring, offset)[0] & ring.TP_STATUS_USER)

    def _drain(self) -> None:
        """Count every frame the kernel has filled, closing segments at their boundaries."""
        frames = self._ring
        header = ring.HEADER.unpack_from
        status_at = ring.STATUS.unpack_from
        set_status = ring.STATUS.pack_into
        gso_size_at = ring.GSO_SIZE.unpack_from
        vnet = self.segments_known
        ipv6 = self._ipv6
        ports = self._port_set
        flows = self._flows
        recovery = self._recovery
        boundaries = self._boundaries
        sequence = self._parsed
        if boundaries:
            self._segment.bind(boundaries[0][1])
        while True:
            while boundaries and boundaries[0][0] == sequence:
                self._segment.bind(boundaries.popleft()[1])
                self._segments.append(self._segment)
                self._segment = self._new_segment()
                if boundaries:
                    self._segment.bind(boundaries[0][1])
            offset = sequence % ring.FRAMES * ring.FRAME_SIZE
            if not status_at(frames, offset)[0] & ring.TP_STATUS_USER:
                break
            _, length, snaplen, mac, net, seconds, nanoseconds = header(frames, offset)
            start = offset + net
            if ipv6:
                ip_header = 40
                ip_length = (frames[start + 4] << 8 | frames[start + 5]) + 40
                if ip_length == 40:  # jumbo payload (BIG TCP): the length is the frame's
                    ip_length = length - (net - mac)
            else:
                ip_header = (frames[start] & 0x0F) * 4
                ip_length = frames[start + 2] << 8 | frames[start + 3]
                if ip_length == 0:  # BIG TCP aggregate over 64 KiB: no length field
                    ip_length = length - (net - mac)
            time_ns = seconds * 1_000_000_000 + nanoseconds
            transport = start + ip_header
            # Towards the target when the destination port is one of the mode's: the
            # packet type cannot tell on loopback, where the filter keeps only arrivals.
            outgoing = (frames[transport + 2] << 8 | frames[transport + 3]) in ports
            # The runner's port names the connection: the source going out, else the
            # destination.
            own_at = transport if outgoing else transport + 2
            own_port = frames[own_at] << 8 | frames[own_at + 1]
            if flows is None:
                headers = ip_header + (frames[transport + 12] >> 4) * 4
            else:
                headers = ip_header + bpf.UDP_HEADER
            payload = ip_length - headers
            segments: int | None = None
            if vnet:
                vnet_header = offset + mac - ring.VNET_HDR_LEN
                segments = wire_segments(
                    payload, gso_size_at(frames, vnet_header + 4)[0], frames[vnet_header + 1] != 0
                )
            segment = self._segment
            held_end = offset + mac + snaplen
            if recovery is not None:  # TCP
                flags = frames[transport + 13]
                seq, ack = TCP_NUMBERS.unpack_from(frames, transport + 4)
                options = _tcp_options(frames, transport, headers - ip_header, held_end)
                kind = recovery.classify(
                    time_ns, outgoing, flags, payload, seq, ack, own_port, options
                )
                segment.tally.add(outgoing, flags, payload, headers, segments, time_ns, kind)
                segment.add(Packet(time_ns, outgoing, flags, payload, seq, ack, own_port, kind))
            elif flows is not None:
                head = bytes(frames[start + headers : min(start + ip_length, held_end)])
                connect, event = flows.datagram(outgoing, own_port, head, payload)
                segment.tally.add_datagram(
                    outgoing, payload, headers, segments, time_ns, connect=connect, event=event
                )
                # The time split sees a datagram that is no event as one without payload.
                segment.add(Packet(time_ns, outgoing, 0, payload if event else 0, 0, 0, own_port))
            set_status(frames, offset, ring.TP_STATUS_KERNEL)
            sequence += 1
            self._parsed = sequence


def _tcp_options(frames: mmap.mmap, transport: int, tcp_header: int, held_end: int) -> TcpOptions:
    """The options of the TCP header at ``transport`` (as far as the snap holds them)."""
    if tcp_header <= TCP_BASE_HEADER:
        return NO_OPTIONS
    start = transport + TCP_BASE_HEADER
    end = min(transport + tcp_header, held_end)
    if end - start == len(TIMESTAMP_ONLY) + 8 and frames[start : start + 4] == TIMESTAMP_ONLY:
        return TcpOptions(TSVAL.unpack_from(frames, start + 4)[0])
    return parse_options(frames[start:end])


def open_capture(
    host: str | Sequence[str],
    ports: tuple[int, ...],
    rtt_ns: int,
    protocol: Protocol = Protocol.TCP,
) -> tuple[WireCapture | None, str | None]:
    """A capture of ``host``'s ``ports`` (resolved like a connect of ``protocol`` does: the
    first address), or None and the reason it cannot run here. ``host`` may be several hosts
    (a fleet mode's devices): one capture counts the traffic with all of them."""
    hosts = [host] if isinstance(host, str) else list(host)
    kind = socket.SOCK_STREAM if protocol is Protocol.TCP else socket.SOCK_DGRAM
    try:
        addresses = tuple(
            dict.fromkeys(
                str(socket.getaddrinfo(name, ports[0], type=kind)[0][4][0]) for name in hosts
            )
        )
        address = addresses[0] if len(addresses) == 1 else addresses
        return WireCapture(address, ports, rtt_ns, protocol), None
    except CaptureUnavailableError as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"packet capture: {type(exc).__name__}: {exc}"
