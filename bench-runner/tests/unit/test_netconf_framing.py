"""RFC 6242 framing: encoders, and the incremental decoder fed the bytes in every slicing."""

import random
import re
from functools import cache

import pytest

from bench_runner.protocols.netconf.errors import NetconfError
from bench_runner.protocols.netconf.framing import (
    END_OF_MESSAGE,
    MAX_CHUNK_SIZE,
    Decoder,
    FramingError,
    encode,
    encode_chunked,
    encode_end_of_message,
)
from bench_runner.validation import IterationError

# RFC 6242 section 4.2's example, as the RFC prints it: one <rpc> in chunks of 4, 18 and 79 bytes.
RFC_CHUNKED = (
    b'\n#4\n<rpc\n#18\n message-id="102"\n'
    b'\n#79\n     xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">\n  <close-session/>\n</rpc>'
    b"\n##\n"
)
RFC_MESSAGE = (
    b'<rpc message-id="102"\n     xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">\n'
    b"  <close-session/>\n</rpc>"
)
HELLO = b'<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities/></hello>'


def decode(stream: bytes, slices: list[int], *, chunked: bool) -> tuple[list[bytes], Decoder]:
    """The messages of ``stream`` fed in slices of the given sizes (the rest last)."""
    decoder = Decoder(chunked=chunked)
    messages: list[bytes] = []
    position = 0
    for size in [*slices, len(stream)]:
        decoder.feed(stream[position : position + size])
        position += size
        while (message := decoder.next_message()) is not None:
            messages.append(message)
    return messages, decoder


def random_slices(total: int, seed: int, largest: int) -> list[int]:
    chooser = random.Random(seed)
    slices: list[int] = []
    while total > 0:
        slices.append(chooser.randint(1, largest))
        total -= slices[-1]
    return slices


def test_encoders_write_the_rfc_framings() -> None:
    assert encode(b"<rpc/>", chunked=True) == b"\n#6\n<rpc/>\n##\n"
    assert encode(b"<rpc/>", chunked=False) == b"<rpc/>]]>]]>"
    assert encode_chunked(b"<rpc/>", max_chunk_size=4) == b"\n#4\n<rpc\n#2\n/>\n##\n"
    assert encode_chunked(b"abcdef", max_chunk_size=3) == b"\n#3\nabc\n#3\ndef\n##\n"


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda: encode_chunked(b""), "empty"),
        (lambda: encode_chunked(b"x", max_chunk_size=0), "outside"),
        (lambda: encode_chunked(b"x", max_chunk_size=MAX_CHUNK_SIZE + 1), "outside"),
        (lambda: encode_end_of_message(b"<a>]]>]]></a>"), "cannot contain"),
    ],
)
def test_encoders_refuse_what_the_framing_cannot_carry(call: object, problem: str) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match=problem):
        call()


def test_rfc_chunked_example_decodes_to_one_message() -> None:
    assert decode(RFC_CHUNKED, [], chunked=True)[0] == [RFC_MESSAGE]


def test_end_of_message_stream_decodes_to_its_messages() -> None:
    stream = HELLO + END_OF_MESSAGE + b"<rpc/>" + END_OF_MESSAGE + b"\n<x/>" + END_OF_MESSAGE
    # What precedes the delimiter is the message, whitespace included.
    assert decode(stream, [], chunked=False)[0] == [HELLO, b"<rpc/>", b"\n<x/>"]


STREAMS = {
    "chunked": (RFC_CHUNKED + encode_chunked(b"<x/>") + encode_chunked(b"]]>]]>#\n"), True),
    "end-of-message": (b"<a>]]</a>]]>]]><b>]]>]]</b>]]>]]>" + HELLO + END_OF_MESSAGE, False),
}


@pytest.mark.parametrize("name", STREAMS)
def test_every_split_point_gives_the_same_messages(name: str) -> None:
    stream, chunked = STREAMS[name]
    whole, _ = decode(stream, [], chunked=chunked)
    assert len(whole) == 3
    for first in range(len(stream) + 1):
        assert decode(stream, [first], chunked=chunked)[0] == whole, first
    assert decode(stream, [1] * len(stream), chunked=chunked)[0] == whole


@pytest.mark.parametrize("name", STREAMS)
@pytest.mark.parametrize("seed", range(20))
def test_random_slices_give_the_same_messages(name: str, seed: int) -> None:
    stream, chunked = STREAMS[name]
    whole, _ = decode(stream, [], chunked=chunked)
    slices = random_slices(len(stream), seed, largest=17)
    assert decode(stream, slices, chunked=chunked)[0] == whole


def test_switch_to_chunked_after_the_hello_in_the_same_read() -> None:
    reply = b'<rpc-reply message-id="1"><data/></rpc-reply>'
    decoder = Decoder()
    decoder.feed(HELLO + END_OF_MESSAGE + encode_chunked(reply, max_chunk_size=10))
    assert not decoder.chunked
    assert decoder.next_message() == HELLO
    decoder.start_chunked()
    assert decoder.chunked
    assert decoder.next_message() == reply
    assert decoder.next_message() is None


def test_switch_after_an_end_of_message_search_that_found_nothing() -> None:
    decoder = Decoder()
    decoder.feed(HELLO + END_OF_MESSAGE + b"\n#3\nabc")
    assert decoder.next_message() == HELLO
    assert decoder.next_message() is None  # searched the chunk for ]]>]]> in vain
    decoder.start_chunked()
    assert decoder.next_message() is None
    decoder.feed(b"\n##\n")
    assert decoder.next_message() == b"abc"
    with pytest.raises(ValueError, match="already"):
        decoder.start_chunked()


@pytest.mark.parametrize(
    ("stream", "fails_at", "problem"),
    [
        (b"#4\n<rpc\n##\n", 0, "bad chunk header: expected b'\\n#', got b'#'"),
        (b"\n4\n<rpc\n##\n", 1, "bad chunk header"),
        (b"\n#0\n", 2, "bad chunk size b'0': zero or a leading zero"),
        (b"\n#012\n", 2, "b'0': zero or a leading zero"),
        (b"\n#\n", 2, "b'': empty"),
        (b"\n#abc\nx\n##\n", 2, "b'a': not a decimal number"),
        (b"\n#12a\n", 4, "b'12a': not a decimal number"),
        (b"\n#-1\n", 2, "not a decimal number"),
        (b"\n#12345678901\n", 12, "b'12345678901': more than 10 digits"),
        (b"\n#4294967296\n", 12, "b'4294967296': over 4294967295"),
        (b"\n#9999999999\n", 12, "over 4294967295"),
        (b"\n##\n", 3, "end of chunks before any chunk"),
        (b"\n#1\nx\n##x", 8, "bad end of chunks"),
        (b"\n#3\n<rpc/>\n##\n", 7, "bad chunk header: expected b'\\n#', got b'c'"),
        (b"\n#1\nx]]>]]>", 5, "bad chunk header"),
    ],
)
def test_malformed_chunks_fail_as_soon_as_their_bytes_arrive(
    stream: bytes, fails_at: int, problem: str
) -> None:
    decoder = Decoder(chunked=True)
    for position in range(fails_at):  # every byte before the wrong one is accepted
        decoder.feed(stream[position : position + 1])
        assert decoder.next_message() is None
    decoder.feed(stream[fails_at : fails_at + 1])
    with pytest.raises(FramingError, match=re.escape(problem)) as failure:
        decoder.next_message()
    assert str(failure.value).startswith("netconf: ")
    # the framing is lost for good: every later call fails the same way
    decoder.feed(encode_chunked(b"<ok/>"))
    with pytest.raises(FramingError, match="chunk"):
        decoder.next_message()


def test_framing_errors_fail_the_iteration() -> None:
    assert issubclass(FramingError, NetconfError)
    assert issubclass(NetconfError, IterationError)


def test_the_largest_chunk_size_is_accepted() -> None:
    decoder = Decoder(chunked=True)
    decoder.feed(b"\n#4294967295\nsome data")
    assert decoder.next_message() is None  # waits for the rest of the 4 GiB chunk


MEGABYTE = 1 << 20


@cache
def megabyte_reply() -> bytes:
    """A reply of 1 MiB of bytes that often start a delimiter (``]``, ``>``, ``#``, LF)."""
    alphabet = b"abcdefgh]>#\n"
    spread = bytes(alphabet[value % len(alphabet)] for value in range(256))
    payload = random.Random(7).randbytes(MEGABYTE).translate(spread)
    return b'<rpc-reply message-id="1"><data>' + payload + b"</data></rpc-reply>"


def test_a_megabyte_in_end_of_message_framing_is_scanned_about_once() -> None:
    message = megabyte_reply().replace(END_OF_MESSAGE, b"")
    stream = message + END_OF_MESSAGE
    for largest in (1, 1500, 65536):
        slices = random_slices(len(stream), seed=largest, largest=largest)
        if largest == 1:
            slices = slices[:100_000]  # byte by byte for the first 100 kB, then the rest
        messages, decoder = decode(stream, slices, chunked=False)
        assert messages == [message]
        feeds = len(slices) + 1
        # each byte once, plus the delimiter's length less one re-examined per feed
        assert decoder.scanned_bytes <= len(stream) + (len(END_OF_MESSAGE) - 1) * feeds


def test_a_megabyte_in_chunks_is_never_searched() -> None:
    message = megabyte_reply()
    for max_chunk in (MEGABYTE * 2, 4096, 1000):
        stream = encode_chunked(message, max_chunk_size=max_chunk)
        slices = random_slices(len(stream), seed=max_chunk, largest=65536)
        messages, decoder = decode(stream, slices, chunked=True)
        assert messages == [message]
        headers = len(message) // max_chunk + 2
        feeds = len(slices) + 1
        # only headers are searched, each in at most 11 bytes per attempt
        assert decoder.scanned_bytes <= 11 * (headers + feeds)
