"""The handshake capture on real loopback connections of real clients and servers (needs
CAP_NET_RAW: root in the runner's image or on a Linux host; elsewhere skipped with the
reason, failed under CI): what the wire says each connection negotiated is what the client
itself reports (OpenSSH's debug log, paramiko's and asyncssh's transport, Python's ssl),
and the HTTPS plugins report the ALPN protocol the server selected."""

import asyncio
import re
import shutil
import socket
import ssl
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import asyncssh
import paramiko
import pytest

from bench_runner.alpn import AlpnReportingSession
from bench_runner.influx_schema import Tag
from bench_runner.modes import Target
from bench_runner.modes.registry import find
from bench_runner.runner import read_handshakes
from bench_runner.wire import capture as capture_module
from bench_runner.wire import hello_capture
from bench_runner.wire.capture import WireCapture, open_capture
from bench_runner.wire.handshake_model import NOT_OFFERED, Handshakes
from bench_runner.wire.handshakes import CLIENT_ID, decode
from prerequisites import missing
from test_https_bulk import _self_signed

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
LOOPBACK_RTT_NS = 50_000
USERNAME, PASSWORD = "labops", "s3cret"
OPENSSH_KEX_LINE = re.compile(
    r"debug1: kex: (?:(algorithm): (\S+)|(host key algorithm): (\S+)"
    r"|(client->server|server->client) cipher: (\S+) MAC: (\S+))"
)


def capture_of_counts_only(port: int) -> WireCapture:
    capture, reason = open_capture("127.0.0.1", (port,), LOOPBACK_RTT_NS)
    if capture is None:
        missing(f"no packet capture here: {reason}")
    return capture


def capture_of(port: int) -> WireCapture:
    capture = capture_of_counts_only(port)
    if capture.hello_error is not None:
        capture.close()
        pytest.fail(capture.hello_error)
    return capture


def negotiated(capture: WireCapture) -> list[dict[str, str]]:
    capture.mark()
    assert capture.finish() is not None, capture.error
    packets, drops = capture.hellos()
    assert packets is not None
    assert drops == 0
    found = decode(packets)
    assert [item.problem for item in found] == [None] * len(found)
    return [item.values for item in found]


class _OpenServer(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False  # no authentication: the session is not what is tested


@asynccontextmanager
async def ssh_server() -> AsyncIterator[int]:
    """An asyncssh server on loopback with an Ed25519 host key."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.listen(
        "127.0.0.1", 0, server_host_keys=[key], server_factory=_OpenServer
    )
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


def test_openssh_logs_what_the_wire_says_it_negotiated() -> None:
    ssh = shutil.which("ssh")
    if ssh is None:
        missing("no OpenSSH client (ssh) here")

    async def connect() -> tuple[list[dict[str, str]], str]:
        async with ssh_server() as port:
            capture = capture_of(port)
            try:
                process = await asyncio.create_subprocess_exec(
                    ssh, "-v", "-p", str(port), "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    f"{USERNAME}@127.0.0.1", "exit",
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                )  # fmt: skip
                _, log = await asyncio.wait_for(process.communicate(), 30)
                return negotiated(capture), log.decode()
            finally:
                capture.close()

    [values], log = asyncio.run(connect())
    logged: dict[str, str] = {}
    for match in OPENSSH_KEX_LINE.finditer(log):
        kex, kex_name, host, host_name, direction, cipher, mac = match.groups()
        if kex:
            logged[Tag.SSH_KEX] = kex_name
        elif host:
            logged[Tag.SSH_HOST_KEY] = host_name
        else:
            suffix = "cs" if direction == "client->server" else "sc"
            logged[f"ssh_cipher_{suffix}"], logged[f"ssh_mac_{suffix}"] = cipher, mac
    assert len(logged) == 6, log
    assert {key: values[key] for key in logged} == logged
    assert values[CLIENT_ID].startswith("SSH-2.0-OpenSSH_")


def test_paramiko_and_asyncssh_report_what_the_wire_says() -> None:
    async def connect() -> tuple[list[dict[str, str]], paramiko.Transport, dict[str, str]]:
        async with ssh_server() as port:
            capture = capture_of(port)
            try:
                transport = paramiko.Transport(("127.0.0.1", port))
                await asyncio.to_thread(transport.start_client, timeout=10)
                async with asyncssh.connect(
                    "127.0.0.1", port, known_hosts=None, username=USERNAME
                ) as connection:
                    seen = {
                        name: str(connection.get_extra_info(name))
                        for name in ("send_cipher", "recv_cipher", "send_mac", "recv_mac")
                    }
                transport.close()
                return negotiated(capture), transport, seen
            finally:
                capture.close()

    [by_paramiko, by_asyncssh], transport, seen = asyncio.run(connect())
    assert by_paramiko[CLIENT_ID] == f"SSH-2.0-paramiko_{paramiko.__version__}"
    assert by_paramiko[Tag.SSH_HOST_KEY] == transport.host_key_type
    assert by_paramiko[Tag.SSH_CIPHER_CS] == transport.local_cipher
    assert by_paramiko[Tag.SSH_CIPHER_SC] == transport.remote_cipher
    assert by_paramiko[Tag.SSH_MAC_CS] == (transport.local_mac or "<implicit>")
    assert by_paramiko[Tag.SSH_MAC_SC] == (transport.remote_mac or "<implicit>")
    assert by_asyncssh[CLIENT_ID] == f"SSH-2.0-AsyncSSH_{asyncssh.__version__}"
    assert by_asyncssh[Tag.SSH_CIPHER_CS] == seen["send_cipher"]
    assert by_asyncssh[Tag.SSH_CIPHER_SC] == seen["recv_cipher"]
    # asyncssh names an AEAD cipher's MAC after the cipher; sshd and OpenSSH say implicit.
    for wire, reported in ((Tag.SSH_MAC_CS, "send_mac"), (Tag.SSH_MAC_SC, "recv_mac")):
        assert by_asyncssh[wire] in (seen[reported], "<implicit>")


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[int]:
    """TLS 1.3 with session tickets, ALPN http/1.1, HTTP/1.1: 200 to every GET, with
    ``Connection: close`` when the request asks for it, as nginx answers."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # http.server dispatches on this exact name
            self.send_response(200)
            self.send_header("Content-Length", "3")
            if self.headers.get("Connection", "").lower() == "close":
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"ok\n")

        def log_message(self, format: str, *args: object) -> None:  # keep test output clean
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.load_cert_chain(*_self_signed(tmp_path))
    context.set_alpn_protocols(["http/1.1"])
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def measured(mode_name: str, client: str, port: int, iterations: int) -> Handshakes:
    """The mode's handshakes over ``iterations`` of two commands, as the runner reads
    them."""
    mode = find(mode_name, client)
    assert mode is not None
    target = Target("127.0.0.1", 22, port, USERNAME, PASSWORD)

    async def run() -> Handshakes:
        capture = capture_of(port)
        try:
            async with mode.session(target) as session:
                assert isinstance(session, AlpnReportingSession)
                for _ in range(iterations):
                    await session.run_iteration(["show version", "show clock"])
            capture.mark()
            capture.finish()
            return read_handshakes(capture, session.alpn.selected, client)
        finally:
            capture.close()

    return asyncio.run(run())


@pytest.mark.parametrize("client", ["httpx", "requests"])
def test_https_clients_report_the_alpn_the_server_selected(client: str, https_server: int) -> None:
    handshakes = measured("https/fresh-conn", client, https_server, iterations=2)
    assert handshakes.connections == 4  # a connection per command
    alpn = handshakes.parameters[Tag.TLS_ALPN]
    assert (alpn.values, alpn.source) == ({"http/1.1": 4}, "library")
    assert handshakes.parameters[Tag.TLS_VERSION].values == {"TLSv1.3": 4}
    assert handshakes.parameters[Tag.TLS_RESUMED].values == {"false": 4}
    assert handshakes.varied == []


def test_python_ssl_resumes_and_offers_no_alpn(https_server: int) -> None:
    handshakes = measured("https/tls-resume", "python-ssl", https_server, iterations=2)
    # The first ticket's full handshake (opening the session), then 4 resumed ones.
    assert handshakes.parameters[Tag.TLS_RESUMED].values == {"false": 1, "true": 4}
    assert handshakes.parameters[Tag.TLS_ALPN].values == {NOT_OFFERED: 5}
    assert handshakes.varied == [Tag.TLS_RESUMED]


def test_the_capture_thread_drains_the_ring_of_a_mode_of_many_connections(
    https_server: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hello_capture, "BACKLOG", 1)
    capture = capture_of(https_server)
    try:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        for _ in range(3):
            with context.wrap_socket(socket.create_connection(("127.0.0.1", https_server))) as tls:
                tls.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                tls.recv(100)
        threading.Event().wait(0.2)  # several of the thread's looks
        assert len(negotiated(capture)) == 3
    finally:
        capture.close()


def test_without_the_handshake_socket_the_mode_says_why(
    https_server: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: object, **options: object) -> None:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(capture_module, "HelloCapture", refused)
    capture = capture_of_counts_only(https_server)
    try:
        capture.mark()
        assert capture.finish() is not None
        handshakes = read_handshakes(capture, None, "httpx")
    finally:
        capture.close()
    assert not handshakes.available
    assert handshakes.reason == "handshake capture on lo: [Errno 12] Cannot allocate memory"
    assert handshakes.parameters == {}
