"""The direct bulk downloads on the HTTPS API (/bulk/10M|100M|1G): the tunnel target's payloads
through nginx, authenticated like every API route, streamed rather than spooled."""

import base64
import http.client
import ssl
import subprocess
import time

import pytest

from conftest import HOST, PASSWORD, USERNAME

AUTH = "Basic " + base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
SIZES = {"10M": 10 << 20, "100M": 100 << 20, "1G": 1 << 30}


def curl(*args):
    """curl's status code, bytes received and Content-Length for https://HOST<path>."""
    out = subprocess.run(["curl", "-sk", "--tlsv1.3", "-o", "/dev/null", "--max-time", "120",
                          "-w", "%{http_code} %{size_download} %header{content-length}", *args],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]), int(out[2]) if len(out) > 2 else None


@pytest.mark.parametrize("http_version", ["--http1.1", "--http2"])
def test_curl_downloads_exact_bytes(http_version):
    code, received, length = curl(http_version, "-u", f"{USERNAME}:{PASSWORD}", f"https://{HOST}/bulk/10M")
    assert (code, received, length) == (200, SIZES["10M"], SIZES["10M"])


def test_every_size_announced_and_1g_delivered():
    for name, size in SIZES.items():
        code, _, length = curl("-I", "-u", f"{USERNAME}:{PASSWORD}", f"https://{HOST}/bulk/{name}")
        assert (code, length) == (200, size), name
    code, received, _ = curl("-u", f"{USERNAME}:{PASSWORD}", f"https://{HOST}/bulk/1G")
    assert (code, received) == (200, SIZES["1G"])


def test_auth_required_and_unknown_size_404():
    assert curl(f"https://{HOST}/bulk/10M")[0] == 401
    assert curl("-u", f"{USERNAME}:wrong", f"https://{HOST}/bulk/10M")[0] == 401
    assert curl("-u", f"{USERNAME}:{PASSWORD}", f"https://{HOST}/bulk/2G")[0] == 404


def test_slow_reader_on_a_kept_connection():
    """Read 1 MiB, pause, then the rest: nginx must hold the rest back (unbuffered: run.sh checks
    that nothing was spooled to a temporary file), and the connection stays usable."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # self-signed
    connection = http.client.HTTPSConnection(HOST, 443, context=context, timeout=60)
    try:
        connection.request("GET", "/bulk/100M", headers={"Authorization": AUTH})
        response = connection.getresponse()
        assert response.status == 200 and int(response.getheader("Content-Length")) == SIZES["100M"]
        received = len(response.read(1 << 20))
        time.sleep(2)
        while chunk := response.read(1 << 20):
            received += len(chunk)
        assert received == SIZES["100M"]
        connection.request("GET", "/bulk/10M")  # the same connection, without credentials
        response = connection.getresponse()
        assert response.status == 401 and response.read() == b"Unauthorized\n"
    finally:
        connection.close()
