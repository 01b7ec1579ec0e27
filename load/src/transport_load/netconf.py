"""A thin NETCONF client (RFC 6241/6242) on a paramiko ``netconf`` subsystem channel, for
load: ncclient polls its session every 0.1 s, which adds up to ~100 ms to each RPC.

The messages, the framing and the checks are the runner's floor client's
(bench_runner.protocols.netconf, pure); this module is the channel's I/O around them. One
operation is a ``<get>`` asking the lab device for a payload of ``reply_bytes``.
"""

from typing import Protocol

import paramiko

from bench_runner.protocols.netconf.framing import Decoder, encode
from bench_runner.protocols.netconf.messages import (
    Framing,
    check_reply,
    client_hello,
    get_payload_rpc,
    negotiate_chunked,
)
from transport_load.ssh import CONNECT_TIMEOUT_S, READ_CHUNK, OperationError


class Channel(Protocol):
    def sendall(self, data: bytes) -> None: ...

    def recv(self, nbytes: int) -> bytes: ...


class NetconfSession:
    """One NETCONF session kept on a channel; ``get`` is one operation."""

    def __init__(self, channel: Channel, framing: Framing) -> None:
        self._channel = channel
        self._decoder = Decoder()
        self._message_id = 0
        channel.sendall(encode(client_hello(framing), chunked=False))
        if negotiate_chunked(self._read_message(), framing):
            self._decoder.start_chunked()

    @classmethod
    def open(cls, transport: paramiko.Transport, framing: Framing) -> "NetconfSession":
        channel = transport.open_session(timeout=CONNECT_TIMEOUT_S)
        channel.settimeout(CONNECT_TIMEOUT_S)
        channel.invoke_subsystem("netconf")
        return cls(channel, framing)

    @property
    def chunked(self) -> bool:
        return self._decoder.chunked

    def _read_message(self) -> bytes:
        while (message := self._decoder.next_message()) is None:
            data = self._channel.recv(READ_CHUNK)
            if not data:
                raise OperationError("netconf: session closed")
            self._decoder.feed(data)
        return message

    def get(self, reply_bytes: int) -> int:
        """One ``<get>``; the reply's size."""
        self._message_id += 1
        request = get_payload_rpc(self._message_id, reply_bytes)
        self._channel.sendall(encode(request, chunked=self.chunked))
        reply = self._read_message()
        check_reply(reply, self._message_id)
        return len(reply)
