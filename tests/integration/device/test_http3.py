"""HTTP/3 on UDP 443, served by the device daemon with quic-go (docs/device.md, HTTP/3): curl
(--http3-only, OpenSSL 3.5's QUIC) and aioquic get from every device of the fleet what HTTPS
answers; each device offers its crypto profile's TLS groups; a resumed connection carries a GET
in 0-RTT early data, which the device serves and counts, and a POST sent in early data gets 425
Too Early and is not executed; an unknown QUIC version gets Version Negotiation; HTTPS
advertises HTTP/3 (Alt-Svc), and /version and /admin/fleet name the server."""

import asyncio
import dataclasses
import json
import os
import re
import socket
import ssl
import struct
import subprocess
import time
import urllib.request
from base64 import b64encode

import pytest
from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration

from conftest import FLEET, FLEET_HOST, FLEET_PROFILES, HELD_HOST, HOST, HOSTNAME, PASSWORD, USERNAME

# The quic-go version emulator/go.mod pins (run.sh reads it there).
QUIC_GO_VERSION = os.environ.get("QUIC_GO_VERSION", "")
AUTH = "Basic " + b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
DEVICES = [(HOSTNAME, HOST), *FLEET]
# A show version answer with its uptime, which moves between two requests, left out.
UPTIME = re.compile(r"uptime is [^\n]*")


def curl(*args):
    """curl's exit status, HTTP version and code, and body, for one request."""
    r = subprocess.run(["curl", "-sk", "--max-time", "20", "-w", "\n%{http_version} %{http_code}", *args],
                       capture_output=True, text=True, timeout=60)
    body, _, status = r.stdout.rpartition("\n")
    version, _, code = status.partition(" ")
    return r.returncode, version, code, body


def https(address, path):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"https://{address}{path}", headers={"Authorization": AUTH})
    with urllib.request.urlopen(request, context=context, timeout=20) as response:
        return response.read().decode()


def metric(host, series):
    """The value of one series of the device's metrics."""
    with urllib.request.urlopen(f"http://{host}:9100/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(series + " "):
                return float(line.split()[-1])
    raise AssertionError(f"{series} not in the metrics of {host}")


def early_requests(host, outcome):
    return metric(host, f'device_http3_requests_total{{early_data="true",outcome="{outcome}"}}')


@pytest.mark.parametrize(("name", "address"), DEVICES)
def test_curl_gets_show_version_over_http3(name, address):
    status, version, code, body = curl("--http3-only", "-u", f"{USERNAME}:{PASSWORD}",
                                       f"https://{address}/admin/exec/show+version")
    assert (status, version, code) == (0, "3", "200"), body
    assert body.startswith(f"{name} uptime is") or f"\n{name} uptime is" in body
    assert UPTIME.sub("", body) == UPTIME.sub("", https(address, "/admin/exec/show+version"))


def test_http3_refuses_bad_credentials():
    assert curl("--http3-only", "-u", f"{USERNAME}:wrong", f"https://{HOST}/admin/exec/show+version")[2] == "401"
    assert curl("--http3-only", f"https://{HOST}/admin/exec/show+version")[2] == "401"


def test_https_advertises_http3():
    r = subprocess.run(["curl", "-sk", "-o", "/dev/null", "-D", "-", "--max-time", "20", f"https://{HOST}/healthz"],
                       capture_output=True, text=True, timeout=60)
    assert re.search(r'(?im)^alt-svc: h3=":443"; ma=86400\r?$', r.stdout), r.stdout


def test_version_and_fleet_name_the_http3_server():
    assert QUIC_GO_VERSION, "run.sh passes the pinned quic-go version"
    with urllib.request.urlopen(f"http://{HOST}:9100/version", timeout=10) as response:
        version = json.loads(response.read())
    assert version["http3"] == f"quic-go {QUIC_GO_VERSION}"
    devices = json.loads(https(FLEET_HOST, "/admin/fleet"))["devices"]
    for device, profile in zip(devices, FLEET_PROFILES, strict=True):
        http3 = device["crypto"]["http3"]
        assert http3["server"] == f"quic-go {QUIC_GO_VERSION}"
        if profile == "modern":  # the build's defaults: Go's, on this server
            assert re.fullmatch(r"defaults of go1\.\d+\S* crypto/tls", http3["groups"]), http3
        else:  # the profile's groups less those Go lacks (X448, ffdhe)
            nginx_groups = device["crypto"]["tls"]["groups"]
            assert http3["groups"] == [g for g in nginx_groups if g != "X448" and not g.startswith("ffdhe")]


def version_negotiation(address):
    """The versions a server lists in answer to a 1200-byte first packet of an unknown version."""
    dcid, scid = os.urandom(8), os.urandom(4)
    probe = bytes([0xC0]) + struct.pack("!I", 0x1A2A3A4A) + bytes([len(dcid)]) + dcid + bytes([len(scid)]) + scid
    probe += bytes(1200 - len(probe))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(10)
        s.sendto(probe, (address, 443))
        reply = s.recv(1500)
    header = 7 + len(scid) + len(dcid)
    assert reply[0] & 0x80 and reply[1:5] == b"\0\0\0\0", reply.hex()
    assert reply[6:6 + len(scid)] == scid and reply[7 + len(scid):header] == dcid
    return [struct.unpack("!I", reply[k:k + 4])[0] for k in range(header, len(reply) - 3, 4)]


@pytest.mark.parametrize(("name", "address"), DEVICES)
def test_an_unknown_quic_version_gets_version_negotiation(name, address):
    assert 0x00000001 in version_negotiation(address), name


# Groups curl (OpenSSL 3.5) can offer alone, and whether each profile's HTTP/3 server takes them.
GROUPS = {"cisco_iosxe": {"X25519": 0, "P-256": 0, "X25519MLKEM768": 7},
          "arista_eos": {"X25519": 0, "P-256": 0, "X25519MLKEM768": 7},
          "modern": {"X25519": 0, "P-256": 0, "X25519MLKEM768": 0}}


@pytest.mark.parametrize(("name", "address", "profile"),
                         [(name, address, profile) for (name, address), profile in zip(FLEET, FLEET_PROFILES)])
def test_each_device_offers_its_profiles_groups_over_http3(name, address, profile):
    for group, status in GROUPS[profile].items():
        # No common group, no QUIC handshake: curl cannot connect (7).
        assert curl("--http3-only", "--curves", group, f"https://{address}/healthz")[0] == status, (name, group)


def test_http3_offers_only_the_held_group():
    assert curl("--http3-only", "--curves", "P-256", f"https://{HELD_HOST}/healthz")[0] == 0
    assert curl("--http3-only", "--curves", "X25519", f"https://{HELD_HOST}/healthz")[0] == 7


class H3Client(QuicConnectionProtocol):
    """An HTTP/3 client on aioquic that can hold back what the server sends (hold, release). A
    client that has heard nothing from the server can send only 0-RTT early data, and the server
    cannot complete its handshake without the client's Finished: what the device does with a
    request meanwhile, it does with a request that arrived in early data."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._http = H3Connection(self._quic)
        self._answers = {}
        self._held = None

    def hold(self):
        self._held = []

    def release(self):
        held, self._held = self._held, None
        for data, addr in held:
            super().datagram_received(data, addr)

    def datagram_received(self, data, addr):
        if self._held is not None:
            self._held.append((data, addr))
        else:
            super().datagram_received(data, addr)

    def quic_event_received(self, event):
        for h3_event in self._http.handle_event(event):
            if not isinstance(h3_event, HeadersReceived | DataReceived):
                continue
            answer = self._answers[h3_event.stream_id]
            if isinstance(h3_event, HeadersReceived):
                answer["status"] = int(dict(h3_event.headers)[b":status"])
            else:
                answer["body"] += h3_event.data
            if h3_event.stream_ended:
                answer["done"].set_result((answer["status"], answer["body"].decode()))

    def send(self, method, authority, path, body=b""):
        """Sends one request now and returns a future of its (status, body)."""
        stream_id = self._quic.get_next_available_stream_id()
        headers = [(b":method", method.encode()), (b":scheme", b"https"), (b":authority", authority.encode()),
                   (b":path", path.encode()), (b"authorization", AUTH.encode())]
        if body:
            headers.append((b"content-type", b"text/plain"))
        self._http.send_headers(stream_id, headers, end_stream=not body)
        if body:
            self._http.send_data(stream_id, body, end_stream=True)
        done = asyncio.get_running_loop().create_future()
        self._answers[stream_id] = {"status": 0, "body": b"", "done": done}
        self.transmit()
        return done


def quic_configuration(address, ticket=None):
    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, verify_mode=ssl.CERT_NONE,
                                      server_name=address)
    configuration.session_ticket = ticket
    return configuration


async def session_ticket(address):
    """A ticket from one full handshake with the device at address (which allows 0-RTT)."""
    tickets = []
    arrived = asyncio.Event()

    def store(ticket):
        tickets.append(ticket)
        arrived.set()

    async with connect(address, 443, configuration=quic_configuration(address), create_protocol=H3Client,
                       session_ticket_handler=store) as client:
        status, _ = await asyncio.wait_for(client.send("GET", address, "/healthz"), 20)
        assert status == 200
        await asyncio.wait_for(arrived.wait(), 20)
    return tickets[-1]


async def wait_for_count(read, want):
    """Polls the device until read() reaches want; the deadline only bounds a failing test."""
    deadline = time.monotonic() + 20
    while (got := await asyncio.to_thread(read)) < want:
        assert time.monotonic() < deadline, f"count {got}, waited for {want}"
        await asyncio.sleep(0.05)


async def in_early_data(address, method, path, body, counted):
    """Sends one request in 0-RTT early data on a resumed connection and lets the handshake
    complete once counted() returns (it waits for the device to count the request). Returns the
    answer and what the client says of its handshake: (status, body, early data accepted, session
    resumed)."""
    ticket = await session_ticket(address)
    async with connect(address, 443, configuration=quic_configuration(address, ticket), create_protocol=H3Client,
                       wait_connected=False) as client:
        client.hold()
        answer = client.send(method, address, path, body)
        await counted()
        client.release()
        status, text = await asyncio.wait_for(answer, 20)
        tls = client._quic.tls
        return status, text, tls.early_data_accepted, tls.session_resumed


def test_aioquic_gets_a_get_served_from_early_data():
    name, address = FLEET[1]
    before = early_requests(FLEET_HOST, "accepted")

    async def counted():
        await wait_for_count(lambda: early_requests(FLEET_HOST, "accepted"), before + 1)

    status, body, early, resumed = asyncio.run(asyncio.wait_for(
        in_early_data(address, "GET", "/admin/exec/show+version", b"", counted), 120))
    assert (status, early, resumed) == (200, True, True)
    assert f"{name} uptime is" in body
    assert UPTIME.sub("", body) == UPTIME.sub("", https(address, "/admin/exec/show+version"))


def test_aioquic_post_in_early_data_gets_425_unexecuted():
    _, address = FLEET[0]
    before = early_requests(FLEET_HOST, "refused")

    async def counted():
        await wait_for_count(lambda: early_requests(FLEET_HOST, "refused"), before + 1)

    configuration = b"interface Loopback425\n description sent in 0-RTT\n"
    status, body, early, _ = asyncio.run(asyncio.wait_for(
        in_early_data(address, "POST", "/admin/config", configuration, counted), 120))
    assert (status, early) == (425, True), body
    assert "Loopback425" not in https(address, "/admin/exec/show+running-config")


def test_aioquic_resumes_without_early_data():
    _, address = FLEET[2]
    series = 'device_http3_handshakes_total{early_data="false",resumed="true"}'
    before = metric(FLEET_HOST, series)

    async def resume():
        # A ticket that does not offer early data: a resumption with a 1-RTT request.
        ticket = dataclasses.replace(await session_ticket(address), max_early_data_size=None)
        async with connect(address, 443, configuration=quic_configuration(address, ticket),
                           create_protocol=H3Client) as client:
            status, _ = await asyncio.wait_for(client.send("GET", address, "/admin/exec/show+clock"), 20)
            return status, client._quic.tls.session_resumed, client._quic.tls.early_data_accepted

    assert asyncio.run(asyncio.wait_for(resume(), 120)) == (200, True, False)
    asyncio.run(wait_for_count(lambda: metric(FLEET_HOST, series), before + 1))
