"""A thin NETCONF client (RFC 6241/6242) on a paramiko ``netconf`` subsystem channel, for
load: ncclient polls its session every 0.1 s, which adds up to ~100 ms to each RPC.

Framing as the runner's floor client (bench_runner.modes.netconf): chunked (:base:1.1) when
both peers offer it, end-of-message otherwise; ``framing="1.0"`` offers only :base:1.0. One
operation is a ``<get>`` asking the lab device for a payload of ``reply_bytes``.
"""

import re
from typing import Literal, Protocol

import paramiko

from transport_load.ssh import CONNECT_TIMEOUT_S, READ_CHUNK, OperationError

BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
BASE_10 = "urn:ietf:params:netconf:base:1.0"
BASE_11 = "urn:ietf:params:netconf:base:1.1"
PAYLOAD_NS = "urn:transport-lab:payload"
END_OF_MESSAGE = b"]]>]]>"
Framing = Literal["1.0", "1.1"]
MESSAGE_ID = re.compile(rb'<rpc-reply[^>]*\smessage-id="([^"]*)"')


class Channel(Protocol):
    def sendall(self, data: bytes) -> None: ...

    def recv(self, nbytes: int) -> bytes: ...


def client_hello(framing: Framing) -> bytes:
    bases = [BASE_10] if framing == "1.0" else [BASE_10, BASE_11]
    capabilities = "".join(f"<capability>{base}</capability>" for base in bases)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><hello xmlns="{BASE_NS}">'
        f"<capabilities>{capabilities}</capabilities></hello>"
    ).encode()


def get_rpc(message_id: int, reply_bytes: int) -> bytes:
    return (
        f'<rpc message-id="{message_id}" xmlns="{BASE_NS}"><get><filter type="subtree">'
        f'<payload xmlns="{PAYLOAD_NS}"><size>{reply_bytes}</size></payload>'
        "</filter></get></rpc>"
    ).encode()


def frame(message: bytes, *, chunked: bool) -> bytes:
    if chunked:
        return b"\n#%d\n" % len(message) + message + b"\n##\n"
    return message + END_OF_MESSAGE


class Reader:
    """Buffered reads of framed messages from a channel."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._buffer = b""

    def _fill(self) -> None:
        data = self._channel.recv(READ_CHUNK)
        if not data:
            raise OperationError("netconf: session closed")
        self._buffer += data

    def read_until(self, separator: bytes) -> bytes:
        while (index := self._buffer.find(separator)) < 0:
            self._fill()
        end = index + len(separator)
        message, self._buffer = self._buffer[:end], self._buffer[end:]
        return message

    def read_exactly(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._fill()
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def message(self, *, chunked: bool) -> bytes:
        if not chunked:
            return self.read_until(END_OF_MESSAGE)[: -len(END_OF_MESSAGE)]
        chunks: list[bytes] = []
        while True:
            if self.read_exactly(2) != b"\n#":
                raise OperationError("netconf: bad chunk header")
            header = self.read_until(b"\n")[:-1]
            if header == b"#":
                return b"".join(chunks)
            if not header.isdigit() or header.startswith(b"0") or len(header) > 10:
                raise OperationError(f"netconf: bad chunk size {header[:20]!r}")
            chunks.append(self.read_exactly(int(header)))


def check_reply(reply: bytes, message_id: int) -> None:
    match = MESSAGE_ID.search(reply)
    if match is None or match.group(1) != str(message_id).encode():
        raise OperationError(f"netconf: no rpc-reply to message-id {message_id}: {reply[:80]!r}")
    if b"rpc-error" in reply:
        raise OperationError(f"netconf: rpc-error: {reply[:200]!r}")
    if b"<data" not in reply:
        raise OperationError("netconf: reply without <data>")


class NetconfSession:
    """One NETCONF session kept on a channel; ``get`` is one operation."""

    def __init__(self, channel: Channel, framing: Framing) -> None:
        self._channel = channel
        self._reader = Reader(channel)
        self._message_id = 0
        channel.sendall(frame(client_hello(framing), chunked=False))
        server_hello = self._reader.message(chunked=False)
        self.chunked = framing == "1.1" and BASE_11.encode() in server_hello

    @classmethod
    def open(cls, transport: paramiko.Transport, framing: Framing) -> "NetconfSession":
        channel = transport.open_session(timeout=CONNECT_TIMEOUT_S)
        channel.settimeout(CONNECT_TIMEOUT_S)
        channel.invoke_subsystem("netconf")
        return cls(channel, framing)

    def get(self, reply_bytes: int) -> int:
        """One ``<get>``; the reply's size."""
        self._message_id += 1
        self._channel.sendall(frame(get_rpc(self._message_id, reply_bytes), chunked=self.chunked))
        reply = self._reader.message(chunked=self.chunked)
        check_reply(reply, self._message_id)
        return len(reply)
