"""Records real handshakes for test_handshakes_recorded.py: real clients against the lab's
device (OpenSSH's sshd, nginx), their hello packets as the runner's capture keeps them, what
each client reports it negotiated, and what sshd logged (LogLevel DEBUG1) for them.

Run in the runner's test container of the test lab (compose.test.yaml: the device writes
sshd's debug log to a volume that container mounts), e.g.

    docker compose -p <project> -f compose.yaml -f compose.test.yaml run --rm -T \\
      -v "$PWD/bench-runner/tests/unit/captures:/out" --entrypoint python3 bench-runner \\
      /out/record_handshakes.py /out/handshakes-device.json

Clients: the OpenSSH client (``ssh -v``: its debug lines say what it negotiated), paramiko
and asyncssh (their transports say), Python's ssl with a resumed second connection, httpx
(ALPN), and ``openssl s_client`` (it names the key-share group, which Python cannot).
"""

import asyncio
import json
import os
import re
import socket
import ssl
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncssh
import httpx
import paramiko

from bench_runner.wire.capture import WireCapture, open_capture

HOST = os.environ.get("DEVICE_HOST", "device")
SSH_PORT = int(os.environ.get("DEVICE_SSH_PORT", "22"))
HTTPS_PORT = int(os.environ.get("DEVICE_HTTPS_PORT", "443"))
USERNAME = os.environ["DEVICE_USERNAME"]
PASSWORD = os.environ["DEVICE_PASSWORD"]
SSHD_LOG = Path(os.environ.get("DEVICE_SSHD_DEBUG_LOG", "/var/log/sshd-debug/sshd.log"))
SSHD_KEX_LINE = re.compile(
    r"(remote software version .*|kex: (?:algorithm|host key|client|server).*)"
)
OPENSSH_KEX_LINE = re.compile(r"debug1: (kex: (?:algorithm|host key|client|server).*)")
OPENSSL_SUMMARY = re.compile(
    r"^(Protocol version|Ciphersuite|Negotiated TLS1\.3 group|Server Temp Key): (.*)$", re.M
)


def packets_of(capture: WireCapture) -> list[list[Any]]:
    capture.mark()
    capture.finish()
    kept, drops = capture.hellos()
    assert kept is not None, (capture.error, capture.hello_error)
    assert drops == 0, drops
    return [
        [
            packet.connection.own_port,
            packet.outgoing,
            packet.seq,
            packet.payload.hex(),
            packet.length,
        ]
        for packet in kept
    ]


def sshd_lines(before: int) -> list[str]:
    with SSHD_LOG.open("rb") as log:
        log.seek(before)
        text = log.read().decode("utf-8", errors="replace")
    # sshd ends each line it writes to its -E file with \r\n, as on a terminal.
    return [
        found.group(1).removesuffix(" [preauth]")
        for line in text.splitlines()
        if (found := SSHD_KEX_LINE.search(line))
    ]


def record(name: str, port: int, run: Any) -> dict[str, Any]:
    """``run()``'s handshakes with the device on ``port``, and what the client reported."""
    before = SSHD_LOG.stat().st_size
    capture, reason = open_capture(HOST, (port,), 1_000_000)
    assert capture is not None, reason
    try:
        reported = run()
        packets = packets_of(capture)
    finally:
        capture.close()
    entry = {
        "client": name,
        "address": capture.address,
        "port": port,
        "reported": reported,
        "packets": packets,
    }
    if port == SSH_PORT:
        entry["sshd"] = sshd_lines(before)
    return entry


def openssh() -> list[str]:
    done = subprocess.run(
        ["ssh", "-v", "-p", str(SSH_PORT), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", f"{USERNAME}@{HOST}", "show clock"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    return OPENSSH_KEX_LINE.findall(done.stderr)


def paramiko_kex() -> dict[str, str | None]:
    transport = paramiko.Transport((HOST, SSH_PORT))
    transport.start_client(timeout=10)
    reported = {
        "host_key": transport.host_key_type,
        "cipher_cs": transport.local_cipher,
        "cipher_sc": transport.remote_cipher,
        "mac_cs": transport.local_mac,
        "mac_sc": transport.remote_mac,
    }
    transport.close()
    return reported


def asyncssh_kex() -> dict[str, str]:
    async def connect() -> dict[str, str]:
        async with asyncssh.connect(
            HOST, SSH_PORT, known_hosts=None, username=USERNAME, password=PASSWORD
        ) as connection:
            names = ("send_cipher", "recv_cipher", "send_mac", "recv_mac", "server_version")
            return {name: str(connection.get_extra_info(name)) for name in names}

    return asyncio.run(connect())


def python_ssl() -> list[dict[str, Any]]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    session = None
    reported = []
    for _ in range(2):
        raw = socket.create_connection((HOST, HTTPS_PORT), 10)
        with context.wrap_socket(raw, session=session) as tls:
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: device\r\nConnection: close\r\n\r\n")
            while tls.recv(4096):
                pass
            session = tls.session
            reported.append(
                {
                    "version": tls.version(),
                    "cipher": tls.cipher()[0] if tls.cipher() else None,
                    "alpn": tls.selected_alpn_protocol(),
                    "resumed": tls.session_reused,
                }
            )
    return reported


def httpx_alpn() -> dict[str, Any]:
    with httpx.Client(verify=False, trust_env=False) as client:  # the device's self-signed cert
        response = client.get(f"https://{HOST}:{HTTPS_PORT}/healthz")
        tls = response.extensions["network_stream"].get_extra_info("ssl_object")
        return {
            "alpn": tls.selected_alpn_protocol(),
            "version": tls.version(),
            "cipher": tls.cipher()[0],
        }


def openssl_client() -> dict[str, str]:
    done = subprocess.run(
        ["openssl", "s_client", "-connect", f"{HOST}:{HTTPS_PORT}", "-brief"],
        input="", capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    return dict(OPENSSL_SUMMARY.findall(done.stdout + done.stderr))


def main(output: Path) -> None:
    device = httpx.get(
        os.environ.get("DEVICE_METRICS_URL", "http://device:9100") + "/version"
    ).json()
    document = {
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "device": device,
        "runner": {"python": sys.version.split()[0], "openssl": ssl.OPENSSL_VERSION,
                   "paramiko": paramiko.__version__, "asyncssh": asyncssh.__version__,
                   "httpx": httpx.__version__},
        "connections": [
            record("openssh", SSH_PORT, openssh),
            record("paramiko", SSH_PORT, paramiko_kex),
            record("asyncssh", SSH_PORT, asyncssh_kex),
            record("python-ssl", HTTPS_PORT, python_ssl),
            record("httpx", HTTPS_PORT, httpx_alpn),
            record("openssl", HTTPS_PORT, openssl_client),
        ],
    }  # fmt: skip
    output.write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
