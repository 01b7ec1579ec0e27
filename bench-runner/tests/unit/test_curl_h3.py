"""curl --http3-only (h3/fresh-conn) against a local HTTP/3 stand-in of the device
(h3_device.py): a process and connection per command, the credentials on its standard
input only, its timings as phases; and its version as ``curl -V`` states it."""

import asyncio
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bench_runner.modes import Mode, Target
from bench_runner.modes.clients import curl_h3
from bench_runner.modes.registry import find
from bench_runner.phases import PhasedSession, PhaseTimer
from bench_runner.runner import run_iteration
from h3_device import PASSWORD, USERNAME, H3Device, output_of, serving
from prerequisites import missing

COMMANDS = ["show version", "show clock"]
CURL_V_DEBIAN13 = """\
curl 8.14.1 (x86_64-pc-linux-gnu) libcurl/8.14.1 OpenSSL/3.5.9 zlib/1.3.1 brotli/1.1.0 \
zstd/1.5.7 libidn2/2.3.8 libpsl/0.21.2 libssh2/1.11.1 nghttp2/1.64.0 nghttp3/1.8.0 \
librtmp/2.3 OpenLDAP/2.6.10
Release-Date: 2025-06-04, security patched: 8.14.1-2+deb13u7
Protocols: dict file ftp ftps gopher gophers http https imap imaps ipfs ipns ldap ldaps mqtt
Features: alt-svc AsynchDNS brotli GSS-API HSTS HTTP2 HTTP3 HTTPS-proxy IDN IPv6 Kerberos \
Largefile libz NTLM PSL SPNEGO SSL threadsafe TLS-SRP UnixSockets zstd
"""


def _curl() -> Mode:
    mode = find("h3/fresh-conn", "curl")
    assert mode is not None
    return mode


def _target_of(device: H3Device) -> Target:
    return Target("127.0.0.1", 22, 443, USERNAME, PASSWORD, h3_port=device.port)


@pytest.fixture
def curl() -> None:
    if shutil.which("curl") is None:
        missing("curl (the runner image installs Debian's)")


def _run(
    device: H3Device, directory: Path, commands: list[str], password: str = PASSWORD
) -> tuple[str | None, dict[str, float], list[tuple[str, ...]], list[bytes]]:
    """One iteration through the runner: its error, its phases, every curl argv and what
    each curl read on its standard input."""
    argvs: list[tuple[str, ...]] = []
    stdins: list[bytes] = []
    spawn = asyncio.create_subprocess_exec

    async def recording_spawn(*argv: str, **kwargs: Any) -> asyncio.subprocess.Process:
        argvs.append(argv)
        process = await spawn(*argv, **kwargs)
        communicate = process.communicate

        async def recording_communicate(data: bytes | None = None) -> tuple[bytes, bytes]:
            stdins.append(data or b"")
            return await communicate(data)

        process.communicate = recording_communicate  # type: ignore[method-assign]
        return process

    async def one() -> tuple[str | None, dict[str, float]]:
        async with serving(device, directory):
            target = replace(_target_of(device), password=password)
            async with _curl().session(target) as session:
                assert isinstance(session, PhasedSession)
                error = (await run_iteration(session, commands, 30.0))[1]
                return error, session.phases.take()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asyncio, "create_subprocess_exec", recording_spawn)
        error, phases = asyncio.run(one())
    return error, phases, argvs, stdins


@pytest.mark.usefixtures("curl")
def test_a_process_and_connection_per_command_credentials_on_stdin(tmp_path: Path) -> None:
    device = H3Device()
    error, phases, argvs, stdins = _run(device, tmp_path, COMMANDS)
    assert error is None
    assert device.connections == len(COMMANDS)
    assert device.paths() == ["/admin/exec/show+version", "/admin/exec/show+clock"]
    assert len(argvs) == len(COMMANDS)
    for argv in argvs:
        assert argv[:2] == ("curl", "--http3-only")
        assert not any(PASSWORD in word or USERNAME in word for word in argv)
    assert stdins == [curl_h3.config_text(_target_of(device)).encode()] * len(COMMANDS)
    assert set(phases) == {"tls_handshake", "send_request", "receive_headers", "receive_body"}


@pytest.mark.usefixtures("curl")
def test_status_and_output_are_checked(tmp_path: Path) -> None:
    error, _, _, _ = _run(H3Device(), tmp_path, COMMANDS, password="wrong")
    assert error == "show version: curl exit status 22, HTTP 401: Unauthorized"
    error, _, _, _ = _run(H3Device(), tmp_path, ["show nonsense"])
    assert error == f"show nonsense: {output_of('show nonsense').strip()}"


def test_config_quotes_the_credentials_as_curl_reads_them() -> None:
    target = Target("h", 22, 443, 'a"b', "p\\q\nr")
    assert curl_h3.config_text(target) == 'user = "a\\"b:p\\\\q\\nr"\n'


def test_version_names_the_quic_stack() -> None:
    assert curl_h3.describe_version(CURL_V_DEBIAN13) == (
        "curl 8.14.1, OpenSSL/3.5.9 (QUIC), nghttp3/1.8.0"
    )
    ngtcp2 = CURL_V_DEBIAN13.replace("nghttp3/1.8.0", "ngtcp2/1.13.0 nghttp3/1.8.0")
    assert curl_h3.describe_version(ngtcp2) == (
        "curl 8.14.1, ngtcp2/1.13.0, OpenSSL/3.5.9, nghttp3/1.8.0"
    )
    assert curl_h3.describe_version(CURL_V_DEBIAN13.replace(" HTTP3 ", " ")) == (
        "curl 8.14.1 (no HTTP/3)"
    )
    assert curl_h3.describe_version("") == "unknown"


@pytest.mark.usefixtures("curl")
def test_the_installed_curl_speaks_http3() -> None:
    assert "(no HTTP/3)" not in curl_h3.version()
    assert curl_h3.version().startswith("curl ")


def test_phases_follow_curls_timestamps_and_never_go_backwards() -> None:
    phases = PhaseTimer()
    curl_h3.add_phases(
        phases,
        {
            "time_namelookup": 0.001,
            "time_appconnect": 0.031,
            "time_pretransfer": 0.030,  # earlier than the previous stamp: a zero phase
            "time_starttransfer": 0.062,
            "time_total": 0.063,
        },
    )
    taken = phases.take()
    assert taken == pytest.approx(
        {"tls_handshake": 30.0, "send_request": 0.0, "receive_headers": 31.0, "receive_body": 1.0}
    )
    assert sum(taken.values()) == pytest.approx(62.0)  # time_total - time_namelookup
    curl_h3.add_phases(phases, {"time_total": 0.1})  # no timings: no phases
    assert phases.take() == {}
