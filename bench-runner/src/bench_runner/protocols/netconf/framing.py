"""RFC 6242 message framing for NETCONF over SSH (pure).

Two framings (RFC 6242 section 4):

- end-of-message (section 4.3, ``:base:1.0``): each message is followed by ``]]>]]>``, a
  sequence the message itself must not contain;
- chunked (section 4.2, ``:base:1.1``): a message is one or more chunks, each
  ``LF HASH chunk-size LF chunk-data``, followed by end-of-chunks, ``LF HASH HASH LF``. A
  chunk-size is a decimal number from 1 to 4294967295 written without leading zeros (so at
  most 10 digits), and chunk-data is exactly that many bytes of any value.

Every session starts in end-of-message framing: the hellos are exchanged in it. When both
hellos carry ``:base:1.1``, both peers use chunked framing for every message after the hellos
(section 4.1). ``Decoder.start_chunked`` makes that switch at a message boundary, so the bytes
that arrived behind the server's hello are decoded as chunks.

A framing error ends the session: the stream cannot be resynchronised (section 4.2 says the
peer must close the session), so a decoder that met one keeps failing.
"""

from bench_runner.protocols.netconf.errors import NetconfError

END_OF_MESSAGE = b"]]>]]>"
END_OF_CHUNKS = b"\n##\n"
CHUNK_START = b"\n#"
MAX_CHUNK_SIZE = 4294967295
MAX_SIZE_DIGITS = len(str(MAX_CHUNK_SIZE))
_LF = ord("\n")
_HASH = ord("#")
_END = 0
"""What ``Decoder._chunk_header`` returns at end-of-chunks (a chunk has at least 1 byte)."""
_EXCERPT = 16
"""Bytes of the stream quoted in a framing error."""


class FramingError(NetconfError):
    """The peer broke RFC 6242 framing."""


def encode_end_of_message(message: bytes) -> bytes:
    """``message`` in end-of-message framing. ValueError when it contains ``]]>]]>``, which
    would end it early on the peer's side."""
    if END_OF_MESSAGE in message:
        raise ValueError("a message in end-of-message framing cannot contain ]]>]]>")
    return message + END_OF_MESSAGE


def encode_chunked(message: bytes, max_chunk_size: int = MAX_CHUNK_SIZE) -> bytes:
    """``message`` in chunked framing, in chunks of ``max_chunk_size`` bytes (the last one
    shorter): one chunk unless the message is longer. ValueError for an empty message (a
    chunked message has at least one chunk, of at least one byte) or a size out of range."""
    if not message:
        raise ValueError("chunked framing cannot carry an empty message")
    if not 1 <= max_chunk_size <= MAX_CHUNK_SIZE:
        raise ValueError(f"chunk size {max_chunk_size} is outside 1..{MAX_CHUNK_SIZE}")
    parts: list[bytes] = []
    for start in range(0, len(message), max_chunk_size):
        chunk = message[start : start + max_chunk_size]
        parts += (b"\n#%d\n" % len(chunk), chunk)
    parts.append(END_OF_CHUNKS)
    return b"".join(parts)


def encode(message: bytes, *, chunked: bool) -> bytes:
    """``message`` in the session's framing: chunked (one chunk) or end-of-message."""
    return encode_chunked(message) if chunked else encode_end_of_message(message)


def _size_problem(digits: bytes, *, complete: bool) -> str | None:
    """What is wrong with a chunk-size field, ``complete`` when its LF has arrived; None when
    nothing is wrong so far."""
    if digits and not digits.isdigit():
        return "not a decimal number"
    if digits.startswith(b"0"):
        return "zero or a leading zero"
    if len(digits) > MAX_SIZE_DIGITS:
        return f"more than {MAX_SIZE_DIGITS} digits"
    if complete and not digits:
        return "empty"
    if complete and int(digits) > MAX_CHUNK_SIZE:
        return f"over {MAX_CHUNK_SIZE}"
    return None


class Decoder:
    """An incremental RFC 6242 decoder: ``feed`` it bytes as the channel delivers them, in
    slices of any size, and take the complete messages with ``next_message`` until it returns
    None. It starts in end-of-message framing (the hellos); ``chunked=True`` starts it in
    chunked framing instead.

    Its work is linear in the bytes fed, whatever their slicing: the search for ``]]>]]>``
    resumes where the previous one stopped (five bytes earlier, in case the delimiter
    straddles two slices), a chunk header is searched in at most its first 13 bytes, chunk data
    is copied once and never searched, and consumed bytes leave the front of the buffer
    without moving the rest. ``scanned_bytes`` counts the bytes its delimiter searches have
    examined.
    """

    def __init__(self, *, chunked: bool = False) -> None:
        self._buffer = bytearray()
        self._chunked = chunked
        self._scan_from = 0  # end-of-message: where the next search for the delimiter starts
        self._chunks: list[bytes] = []  # chunked: the current message's data received so far
        self._chunk_left = 0  # chunked: bytes of the current chunk still to come
        self._failure: str | None = None
        self.scanned_bytes = 0

    @property
    def chunked(self) -> bool:
        """Whether the decoder reads chunked framing (else end-of-message framing)."""
        return self._chunked

    def start_chunked(self) -> None:
        """Decode everything after the last message returned in chunked framing (after a
        hello exchange in which both peers offered ``:base:1.1``). ValueError if it already
        does."""
        if self._chunked:
            raise ValueError("the decoder already reads chunked framing")
        self._chunked = True
        self._scan_from = 0

    def feed(self, data: bytes) -> None:
        """Bytes that arrived from the peer, after the bytes fed before."""
        self._buffer += data

    def next_message(self) -> bytes | None:
        """The next complete message without its framing, or None until more bytes arrive.
        FramingError when the bytes break the framing, and on every call after that."""
        if self._failure is not None:
            raise FramingError(self._failure)
        try:
            return self._next_chunked() if self._chunked else self._next_end_of_message()
        except FramingError as failure:
            self._failure = str(failure)
            raise

    def _next_end_of_message(self) -> bytes | None:
        buffer = self._buffer
        end = buffer.find(END_OF_MESSAGE, self._scan_from)
        if end < 0:
            self.scanned_bytes += len(buffer) - self._scan_from
            self._scan_from = max(0, len(buffer) - len(END_OF_MESSAGE) + 1)
            return None
        self.scanned_bytes += end + len(END_OF_MESSAGE) - self._scan_from
        message = bytes(buffer[:end])
        del buffer[: end + len(END_OF_MESSAGE)]
        self._scan_from = 0
        return message

    def _next_chunked(self) -> bytes | None:
        buffer = self._buffer
        while True:
            if self._chunk_left:
                if not buffer:
                    return None
                data = bytes(buffer[: self._chunk_left])
                del buffer[: len(data)]
                self._chunks.append(data)
                self._chunk_left -= len(data)
                continue
            size = self._chunk_header()
            if size is None:
                return None
            if size == _END:
                message = b"".join(self._chunks)
                self._chunks = []
                return message
            self._chunk_left = size

    def _chunk_header(self) -> int | None:
        """The next chunk's size, consumed from the buffer; ``_END`` for end-of-chunks; None
        until the header is complete. Wrong bytes fail as soon as they arrive."""
        buffer = self._buffer
        if not CHUNK_START.startswith(buffer[: len(CHUNK_START)]):
            raise FramingError(
                f"netconf: bad chunk header: expected {CHUNK_START!r}, "
                f"got {bytes(buffer[:_EXCERPT])!r}"
            )
        if len(buffer) <= len(CHUNK_START):
            return None
        if buffer[2] == _HASH:
            if len(buffer) < len(END_OF_CHUNKS):
                return None
            if buffer[3] != _LF:
                raise FramingError(f"netconf: bad end of chunks {bytes(buffer[:_EXCERPT])!r}")
            if not self._chunks:
                raise FramingError("netconf: end of chunks before any chunk")
            del buffer[: len(END_OF_CHUNKS)]
            return _END
        limit = min(len(buffer), len(CHUNK_START) + MAX_SIZE_DIGITS + 1)
        newline = buffer.find(b"\n", len(CHUNK_START), limit)
        field_end = limit if newline < 0 else newline
        self.scanned_bytes += (limit if newline < 0 else newline + 1) - len(CHUNK_START)
        digits = bytes(buffer[len(CHUNK_START) : field_end])
        problem = _size_problem(digits, complete=newline >= 0)
        if problem is not None:
            raise FramingError(f"netconf: bad chunk size {digits!r}: {problem}")
        if newline < 0:
            return None
        del buffer[: newline + 1]
        return int(digits)
