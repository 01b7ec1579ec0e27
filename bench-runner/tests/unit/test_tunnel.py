"""The tunnel modes' HTTP client on scripted byte streams, and the bulk-size plan fields."""

import pytest

from bench_runner.modes import select_modes, sweep_bulk_sizes
from bench_runner.modes.clients.tunnel_http import http_get
from bench_runner.payloads import BULK_BYTES
from bench_runner.plan import PlanError, parse_plan
from bench_runner.validation import IterationError


class ScriptedPipe:
    """Hands out ``data`` in chunks of at most ``step`` bytes; records what was sent."""

    def __init__(self, data: bytes, step: int = 7) -> None:
        self.data = data
        self.step = step
        self.sent = b""

    def sendall(self, data: bytes, /) -> None:
        self.sent += data

    def recv(self, size: int, /) -> bytes:
        chunk, self.data = self.data[: min(size, self.step)], self.data[min(size, self.step) :]
        return chunk

    def close(self) -> None:
        pass


def test_small_body_is_returned_and_request_is_http11() -> None:
    pipe = ScriptedPipe(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
    assert http_get(pipe, "/", keep_alive=True) == (200, b"hello")
    assert pipe.sent == (b"GET / HTTP/1.1\r\nHost: tunnel-target\r\nConnection: keep-alive\r\n\r\n")


def test_large_body_is_counted_not_kept_even_in_one_big_first_chunk() -> None:
    body = b"x" * 200_000
    pipe = ScriptedPipe(b"HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n" + body, step=1 << 20)
    assert http_get(pipe, "/10M", keep_alive=False) == (200, b"")
    assert pipe.data == b""


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "5 of 10 bytes, then EOF"),
        (b"HTTP/1.1 200 OK\r\n\r\n", "no Content-Length"),
        (b"SSH-2.0-OpenSSH\r\n\r\n", "bad status line"),
        (b"HTTP/1.1 200 OK\r\n", "closed before the headers"),
    ],
)
def test_broken_replies_fail_the_iteration(reply: bytes, reason: str) -> None:
    with pytest.raises(IterationError, match=reason):
        http_get(ScriptedPipe(reply), "/x", keep_alive=False)


def test_bulk_sizes_are_opt_in_and_swept() -> None:
    assert parse_plan("", "t").tunnel_bulk_sizes == ["10M"]
    assert parse_plan("tunnel_bulk_sizes: [10M, 1G]\n", "t").tunnel_bulk_sizes == ["10M", "1G"]
    with pytest.raises(PlanError):
        parse_plan("tunnel_bulk_sizes: [2G]\n", "t")
    selected = select_modes(["tunnel/bulk", "tunnel/request"], ["all"]).modes
    assert [mode.client for mode in selected] == [
        "asyncssh",
        "paramiko",
        "openssh",
        "ssh2-python",
    ] * 2
    swept = sweep_bulk_sizes(selected, ["10M", "100M"])
    bulk = [mode for mode in swept if mode.name == "tunnel/bulk"]
    assert [(mode.client, mode.bulk_size()) for mode in bulk[:2]] == [
        ("asyncssh", "10M"),
        ("asyncssh", "100M"),
    ]
    assert bulk[1].transfer_bytes() == BULK_BYTES["100M"] == 100 << 20
    assert bulk[1].parameters() == {"bulk_size": "100M"}
    assert len(swept) == 12
