"""``https/bulk`` (httpx and requests) against a local HTTPS server serving the device's
``/bulk/<size>`` route: one kept connection, streamed and counted bytes, failures."""

import asyncio
import base64
import datetime
import ipaddress
import ssl
import threading
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bench_runner.modes import ALL_MODES, Mode, Target, select_modes, sweep_bulk_sizes
from bench_runner.modes.registry import find
from bench_runner.payloads import BULK_BYTES, BulkSize
from bench_runner.runner import run_iteration
from bench_runner.validation import IterationError

# requests_api disables it when first imported; a test may be the first to import it.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
USERNAME, PASSWORD = "labops", "s3cret"
PAYLOAD_CHUNK = b"x" * (64 << 10)


@dataclass
class BulkServer:
    """What the fake device saw, and how it misbehaves (``announced_bytes``)."""

    port: int = 0
    connections: int = 0
    requests: list[str] = field(default_factory=list)
    announced_bytes: dict[str, int] = field(default_factory=lambda: dict(BULK_BYTES))


def _self_signed(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "device")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def bulk_server(tmp_path: Path) -> Iterator[BulkServer]:
    """TLS 1.3, HTTP/1.1 keep-alive, Basic auth, ``GET``/``HEAD /bulk/<size>``."""
    state = BulkServer()
    authorization = "Basic " + base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            state.connections += 1
            super().setup()

        def _answer(self, *, body: bool) -> None:
            state.requests.append(f"{self.command} {self.path}")
            size = state.announced_bytes.get(self.path.removeprefix("/bulk/"))
            if self.headers.get("Authorization") != authorization:
                self._empty(401)
            elif not self.path.startswith("/bulk/") or size is None:
                self._empty(404)
            else:
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                while body and size > 0:
                    self.wfile.write(PAYLOAD_CHUNK[:size])
                    size -= len(PAYLOAD_CHUNK)

        def _empty(self, status: int) -> None:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        # http.server dispatches on these exact method names.
        def do_GET(self) -> None:
            self._answer(body=True)

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(*_self_signed(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def _target(server: BulkServer, password: str = PASSWORD) -> Target:
    return Target(
        host="127.0.0.1", ssh_port=22, https_port=server.port, username=USERNAME, password=password
    )


def https_bulk(client: str, size: BulkSize = "10M") -> Mode:
    mode = find("https/bulk", client)
    assert mode is not None
    return mode.with_bulk_size(size)


async def _iterations(mode: Mode, target: Target, count: int) -> list[list[str]]:
    async with mode.session(target) as session:
        return [await session.run_iteration([]) for _ in range(count)]


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_one_kept_connection_counts_every_byte(client: str, bulk_server: BulkServer) -> None:
    outputs = asyncio.run(_iterations(https_bulk(client), _target(bulk_server), 3))
    assert outputs == [[f"{10 << 20} bytes"]] * 3
    # The connection is opened (and the route checked) before the first iteration.
    assert bulk_server.requests == ["HEAD /bulk/10M"] + ["GET /bulk/10M"] * 3
    assert bulk_server.connections == 1


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_body_is_streamed_not_held(client: str, bulk_server: BulkServer) -> None:
    async def download() -> None:
        async with https_bulk(client).session(_target(bulk_server)) as session:
            tracemalloc.start()
            try:
                await session.run_iteration([])
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert peak < 2 << 20, f"{peak} bytes held for a 10 MiB download"

    asyncio.run(download())


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_short_body_fails_the_iteration(client: str, bulk_server: BulkServer) -> None:
    async def one_iteration() -> str | None:
        async with https_bulk(client).session(_target(bulk_server)) as session:
            bulk_server.announced_bytes["10M"] = BULK_BYTES["10M"] - 1
            return (await run_iteration(session, [], timeout_s=30))[1]

    assert asyncio.run(one_iteration()) == f"/bulk/10M: {(10 << 20) - 1} of {10 << 20} bytes"


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_session_needs_auth_and_the_route(client: str, bulk_server: BulkServer) -> None:
    with pytest.raises(IterationError, match="/bulk/10M: HTTP 401"):
        asyncio.run(_iterations(https_bulk(client), _target(bulk_server, "wrong"), 1))
    del bulk_server.announced_bytes["1G"]  # a device without the route answers 404
    with pytest.raises(IterationError, match="/bulk/1G: HTTP 404"):
        asyncio.run(_iterations(https_bulk(client, "1G"), _target(bulk_server), 1))


def test_swept_with_tunnel_bulk_and_reports_its_transfer() -> None:
    selected = select_modes(["tunnel/bulk", "https/bulk"], ["all"])
    assert [(mode.name, mode.client) for mode in selected.modes] == [
        ("tunnel/bulk", "asyncssh"),
        ("tunnel/bulk", "paramiko"),
        ("tunnel/bulk", "openssh"),
        ("tunnel/bulk", "ssh2-python"),
        ("https/bulk", "httpx"),
        ("https/bulk", "requests"),
    ]
    swept = sweep_bulk_sizes(selected.modes, ["10M", "1G"])
    https = [mode for mode in swept if mode.name == "https/bulk"]
    assert [(mode.client, mode.parameters()) for mode in https] == [
        ("httpx", {"bulk_size": "10M"}),
        ("httpx", {"bulk_size": "1G"}),
        ("requests", {"bulk_size": "10M"}),
        ("requests", {"bulk_size": "1G"}),
    ]
    assert [mode.transfer_bytes() for mode in https] == [10 << 20, 1 << 30] * 2
    assert len(swept) == 12


def test_transfer_bytes_marks_exactly_the_bulk_downloads() -> None:
    """The runner applies a plan's ``tunnel_bulk_iterations`` to the modes that report a
    transfer: those must be the bulk downloads, every size of them."""
    for mode in ALL_MODES:
        is_download = mode.name in ("tunnel/bulk", "https/bulk")
        assert (mode.transfer_bytes() is not None) == is_download, mode.label()


def test_round_trips() -> None:
    for mode in (https_bulk("httpx"), https_bulk("requests")):
        assert (mode.min_round_trips(5), mode.expected_round_trips(5)) == (1, 1)
        assert mode.port(_target(BulkServer(port=8443))) == 8443
