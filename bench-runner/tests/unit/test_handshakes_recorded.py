"""Real handshakes recorded against the lab's device (captures/handshakes-device.json, made
by captures/record_handshakes.py): OpenSSH's sshd and nginx, with the OpenSSH client,
paramiko, asyncssh, Python's ssl, httpx and ``openssl s_client``. What ``decode`` reads from
the recorded bytes is what sshd logged (LogLevel DEBUG1) and what each client reported."""

import ipaddress
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench_runner.influx_schema import SSH_HANDSHAKE_TAGS, Tag
from bench_runner.wire.handshakes import CLIENT_ID, SERVER_ID, Negotiation, decode
from bench_runner.wire.hello_capture import ConnectionKey, HelloPacket

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "captures" / "handshakes-device.json").read_text()
)
SSHD_KEX = re.compile(r"kex: (algorithm|host key algorithm): (\S+)")
SSHD_CIPHER = re.compile(r"kex: (client->server|server->client) cipher: (\S+) MAC: (\S+)")


def entry(client: str) -> dict[str, Any]:
    found: dict[str, Any] = next(
        item for item in RECORDED["connections"] if item["client"] == client
    )
    return found


def negotiations(client: str) -> list[Negotiation]:
    recorded = entry(client)
    device = ipaddress.ip_address(recorded["address"]).packed
    packets = [
        HelloPacket(
            ConnectionKey(device, recorded["port"], own_port),
            outgoing,
            seq,
            bytes.fromhex(data),
            length,
        )
        for own_port, outgoing, seq, data, length in recorded["packets"]
    ]
    found = decode(packets)
    assert [item.problem for item in found] == [None] * len(found)
    return found


def kex_lines(lines: list[str]) -> dict[str, str]:
    """A connection's algorithms as sshd's or OpenSSH's debug lines name them."""
    logged = {}
    for line in lines:
        if found := SSHD_KEX.search(line):
            logged[Tag.SSH_KEX if found.group(1) == "algorithm" else Tag.SSH_HOST_KEY] = (
                found.group(2)
            )
        elif found := SSHD_CIPHER.search(line):
            way = "cs" if found.group(1) == "client->server" else "sc"
            logged[f"ssh_cipher_{way}"], logged[f"ssh_mac_{way}"] = found.group(2), found.group(3)
    return logged


@pytest.mark.parametrize("client", ["openssh", "paramiko", "asyncssh"])
def test_ssh_clients_negotiated_what_sshd_logged(client: str) -> None:
    [negotiation] = negotiations(client)
    recorded = entry(client)
    negotiated = {tag: negotiation.values[tag] for tag in SSH_HANDSHAKE_TAGS}
    assert negotiated == kex_lines(recorded["sshd"])
    [software] = [line for line in recorded["sshd"] if line.startswith("remote software version")]
    assert software == "remote software version " + negotiation.values[CLIENT_ID].removeprefix(
        "SSH-2.0-"
    )
    assert negotiation.values[SERVER_ID].startswith("SSH-2.0-OpenSSH_")


def test_the_clients_say_the_same() -> None:
    [openssh] = negotiations("openssh")
    assert {tag: openssh.values[tag] for tag in SSH_HANDSHAKE_TAGS} == kex_lines(
        entry("openssh")["reported"]
    )
    [paramiko] = negotiations("paramiko")
    reported = entry("paramiko")["reported"]
    assert paramiko.values[Tag.SSH_HOST_KEY] == reported["host_key"]
    assert paramiko.values[Tag.SSH_CIPHER_CS] == reported["cipher_cs"]
    assert paramiko.values[Tag.SSH_CIPHER_SC] == reported["cipher_sc"]
    assert paramiko.values[Tag.SSH_MAC_CS] == (reported["mac_cs"] or "<implicit>")
    [asyncssh] = negotiations("asyncssh")
    reported = entry("asyncssh")["reported"]
    assert asyncssh.values[Tag.SSH_CIPHER_CS] == reported["send_cipher"]
    assert asyncssh.values[Tag.SSH_CIPHER_SC] == reported["recv_cipher"]
    assert asyncssh.values[SERVER_ID].removeprefix("SSH-2.0-") == reported[
        "server_version"
    ].removeprefix("SSH-2.0-")


def test_python_ssl_resumes_its_second_connection() -> None:
    full, resumed = negotiations("python-ssl")
    for negotiation, reported in zip((full, resumed), entry("python-ssl")["reported"], strict=True):
        assert negotiation.values[Tag.TLS_VERSION] == reported["version"]
        assert negotiation.values[Tag.TLS_CIPHER] == reported["cipher"]
        assert negotiation.values[Tag.TLS_RESUMED] == str(reported["resumed"]).lower()
        assert negotiation.alpn_offered == ()
        assert reported["alpn"] is None


def test_httpx_offers_http11() -> None:
    [negotiation] = negotiations("httpx")
    reported = entry("httpx")["reported"]
    assert negotiation.alpn_offered == ("http/1.1",)
    assert reported["alpn"] == "http/1.1"
    assert negotiation.values[Tag.TLS_VERSION] == reported["version"]
    assert negotiation.values[Tag.TLS_CIPHER] == reported["cipher"]


def test_the_group_is_the_one_openssl_names() -> None:
    [negotiation] = negotiations("openssl")
    reported = entry("openssl")["reported"]
    named = reported.get("Negotiated TLS1.3 group") or reported["Server Temp Key"].split(",")[0]
    assert negotiation.values[Tag.TLS_GROUP].lower() == named.lower()
    assert negotiation.values[Tag.TLS_CIPHER] == reported["Ciphersuite"]
    assert negotiation.values[Tag.TLS_VERSION] == reported["Protocol version"]
