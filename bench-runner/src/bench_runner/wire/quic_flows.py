"""What a QUIC datagram is to the counts, from the first bytes the capture keeps of it.

QUIC has no SYN and no pure ACK the capture could see: after the handshake every packet is
encrypted, its frames and even its packet number hidden. What is visible decides:

- **a connection starts** with a client's Initial packet of version 1 whose destination
  connection ID its UDP port has not used before: the first Initial of a connection goes to
  an ID the client made up, every later one (an acknowledgment, a retransmission after the
  server answered, the Initial after a Retry) to an ID the server chose, which the server's
  long headers showed as their source. A retransmitted first Initial repeats the ID it
  made up. Other versions (the RTT probe's reserved one) start nothing;
- **a send** is every datagram the client sends, but a 1-RTT datagram too short to carry an
  HTTP/3 request (``quic.SMALLEST_REQUEST_PACKET`` plus the server's connection ID, as the
  server's long headers gave its length): acknowledgments, flow-control updates and a close,
  which nobody answers. It is a lower bound, so no request is ever taken for one; an
  acknowledgment larger than it (ECN counts, several ranges) is still a send. That matters
  only where the earliest-answer rule cannot help (``roundtrips.earliest_answer_ns``: at
  ``local``, where every change of direction counts): elsewhere the rest of an answer
  arrives far sooner than a round trip after the client's acknowledgment of its start;
- **a receive** is every datagram the server sends.
"""

from bench_runner.protocols import quic


class QuicFlows:
    """The connection IDs each runner port has used and the length of the server's, kept
    for the whole capture (a kept connection's handshake lies in an earlier segment)."""

    __slots__ = ("_known", "_server_id_bytes")

    def __init__(self) -> None:
        self._known: dict[int, set[bytes]] = {}
        self._server_id_bytes: dict[int, int] = {}

    def datagram(self, outgoing: bool, own_port: int, head: bytes, size: int) -> tuple[bool, bool]:
        """Whether the datagram of ``size`` payload bytes, which starts with ``head``, starts
        a connection, and whether it is an event of the round-trip count."""
        ids = quic.peek_long_header(head)
        known = self._known.setdefault(own_port, set())
        if not outgoing:
            if ids is not None and ids.version == quic.VERSION_1 and ids.scid is not None:
                known.add(ids.scid)
                self._server_id_bytes[own_port] = len(ids.scid)
            return False, size > 0
        if ids is None:
            if quic.is_long_header(head):
                return False, True  # a long header cut before its IDs: a handshake step
            server_id = self._server_id_bytes.get(own_port)
            carries_request = server_id is None or size >= quic.SMALLEST_REQUEST_PACKET + server_id
            return False, size > 0 and carries_request
        starts = (
            ids.version == quic.VERSION_1
            and ids.kind is quic.PacketType.INITIAL
            and ids.dcid not in known
        )
        if starts:
            known.add(ids.dcid)
        return starts, True
