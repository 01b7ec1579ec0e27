"""Crypto profiles (emulator/README.md, Crypto profiles): a device offers its profile's SSH and
TLS algorithms and no others. For each platform profile and each negotiation (key exchange,
cipher, MAC, host key), a client offering only an algorithm of the profile is accepted and one
offering only an algorithm outside it is refused, with OpenSSH, paramiko and asyncssh alike; TLS
versions and cipher suites likewise. The fleet container's devices have different profiles
(FLEET_CRYPTO): each address negotiates its own device's. A device holding one key exchange and
one TLS group fixed (DEVICE_CRYPTO_KEX, DEVICE_CRYPTO_TLS_GROUP: a crypto sweep's step) offers
those alone, to every client."""

import asyncio
import json
import re
import socket
import ssl
import subprocess
import urllib.request
from base64 import b64encode

import asyncssh
import paramiko
import pytest

from conftest import (
    FLEET,
    FLEET_HOST,
    FLEET_PROFILES,
    HELD_HOST,
    HELD_KEX,
    HELD_TLS_GROUP,
    HOST,
    HOST10,
    PASSWORD,
    PLATFORM10,
    SSH_OPTS,
    USERNAME,
)

CLIENTS = ("openssh", "paramiko", "asyncssh")

# (profile, negotiation, an algorithm the profile offers, one it does not): names every client
# implements, except where the refused one is given per client (paramiko has no SHA-1 key
# exchange). The refused ones are names the device's OpenSSH knows, so a refusal is the
# profile's doing; but for paramiko's ML-KEM hybrid on the Debian 12 device, whose OpenSSH 9.2
# lacks it.
CASES = [
    ("cisco_iosxe", "kex", "ecdh-sha2-nistp256", "diffie-hellman-group-exchange-sha256"),
    ("cisco_iosxe", "cipher", "aes256-ctr", "aes128-cbc"),
    ("cisco_iosxe", "mac", "hmac-sha2-512-etm@openssh.com", "hmac-sha2-256"),
    ("cisco_iosxe", "hostkey", "ecdsa-sha2-nistp256", "ssh-ed25519"),
    ("arista_eos", "kex", "diffie-hellman-group14-sha256",
     {"openssh": "diffie-hellman-group14-sha1", "paramiko": "mlkem768x25519-sha256",
      "asyncssh": "diffie-hellman-group14-sha1"}),
    ("arista_eos", "cipher", "aes192-ctr", "aes256-cbc"),
    ("arista_eos", "mac", "hmac-sha2-256", "hmac-sha1"),
    ("arista_eos", "hostkey", "rsa-sha2-512", "ecdsa-sha2-nistp256"),
]
# The /admin/fleet list each negotiation is checked against.
LIST = {"kex": "kex", "cipher": "ciphers", "mac": "macs", "hostkey": "host_keys"}
# How each client says no common algorithm was found, per negotiation.
REFUSAL = {
    "openssh": {"kex": "no matching key exchange method found", "cipher": "no matching cipher found",
                "mac": "no matching MAC found", "hostkey": "no matching host key type found"},
    "paramiko": {"kex": "no acceptable kex algorithm", "cipher": "no acceptable ciphers",
                 "mac": "no acceptable macs", "hostkey": "host key"},
    # asyncssh leaves the host key choice to the server, which hangs up.
    "asyncssh": {"kex": "No matching key exchange algorithm", "cipher": "No matching encryption algorithm",
                 "mac": "No matching MAC algorithm", "hostkey": ""},
}
# A MAC is negotiated only with a cipher that has none of its own (not an AEAD).
MAC_CIPHER = "aes128-ctr"


def https_json(address, path):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    token = b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(f"https://{address}{path}", headers={"Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, context=context, timeout=20) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def fleet_doc():
    return https_json(FLEET_HOST, "/admin/fleet")


@pytest.fixture(scope="module")
def profile_lists(fleet_doc):
    """The effective lists of each profile in use in the fleet container, by profile name."""
    return {device["crypto_profile"]: device["crypto"] for device in fleet_doc["devices"]}


def address_of(profile):
    """The first device of the fleet container with that profile."""
    for (_, address), device_profile in zip(FLEET, FLEET_PROFILES, strict=True):
        if device_profile == profile:
            return address
    pytest.fail(f"no device of the fleet has crypto profile {profile} (FLEET_CRYPTO={FLEET_PROFILES})")


def openssh(env, address, negotiation, name, verbose=False):
    """`ssh ... show clock` offering only that algorithm for that negotiation (None: defaults)."""
    options = {"kex": ["-o", f"KexAlgorithms={name}"], "cipher": ["-o", f"Ciphers={name}"],
               "mac": ["-o", f"Ciphers={MAC_CIPHER}", "-o", f"MACs={name}"],
               "hostkey": ["-o", f"HostKeyAlgorithms={name}"], None: []}[negotiation]
    return subprocess.run(["ssh", *SSH_OPTS, *(["-vv"] if verbose else []), *options, f"{USERNAME}@{address}",
                           "show clock"], env=env, capture_output=True, text=True, timeout=30,
                          stdin=subprocess.DEVNULL)


def paramiko_session(address, negotiation, name):
    """Key exchange, password authentication and one command; what paramiko negotiated."""
    transport = paramiko.Transport(socket.create_connection((address, 22), timeout=10))
    try:
        options = transport.get_security_options()
        if negotiation == "kex":
            options.kex = (name,)
        elif negotiation == "cipher":
            options.ciphers = (name,)
        elif negotiation == "mac":
            options.ciphers, options.digests = (MAC_CIPHER,), (name,)
        elif negotiation == "hostkey":
            options.key_types = (name,)
        transport.start_client(timeout=15)
        transport.auth_password(USERNAME, PASSWORD)
        channel = transport.open_session()
        channel.exec_command("show clock")
        channel.recv_exit_status()
        return {"hostkey": transport.host_key_type, "cipher": transport.remote_cipher, "mac": transport.remote_mac}
    finally:
        transport.close()


def asyncssh_session(address, negotiation, name):
    options = {"kex": {"kex_algs": [name]}, "cipher": {"encryption_algs": [name]},
               "mac": {"encryption_algs": [MAC_CIPHER], "mac_algs": [name]},
               "hostkey": {"server_host_key_algs": [name]}, None: {}}[negotiation]

    async def session():
        async with asyncssh.connect(address, username=USERNAME, password=PASSWORD, known_hosts=None,
                                    connect_timeout=15, **options) as conn:
            await conn.run("show clock", check=True)

    asyncio.run(session())


def assert_library_refused(session, errors, address, negotiation, name, message, attempts=5):
    """Every attempt fails; at least one with the library's own account of the mismatch. sshd
    exits as soon as it finds no common algorithm, and the reset its exit sends can discard its
    KEXINIT from the client's socket before the library reads it: the library then reports only
    the lost connection. Never a session."""
    reasons = []
    for _ in range(attempts):
        with pytest.raises((*errors, ConnectionError, EOFError)) as refusal:
            session(address, negotiation, name)
        reasons.append(str(refusal.value))
        if message and message in reasons[-1]:
            return
    assert not message, f"no attempt said {message!r}: {reasons}"


def refused_name(refused, client):
    return refused[client] if isinstance(refused, dict) else refused


@pytest.mark.parametrize(("profile", "negotiation", "offered", "refused"), CASES)
def test_the_cases_follow_the_profile(profile_lists, profile, negotiation, offered, refused):
    names = profile_lists[profile]["ssh"][LIST[negotiation]]
    assert offered in names
    for client in CLIENTS:
        assert refused_name(refused, client) not in names


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("profile", "negotiation", "offered", "refused"), CASES)
def test_an_offered_algorithm_is_accepted(askpass_env, client, profile, negotiation, offered, refused):
    address = address_of(profile)
    if client == "openssh":
        r = openssh(askpass_env, address, negotiation, offered)
        assert r.returncode == 0 and r.stdout.strip(), r.stderr
    elif client == "paramiko":
        negotiated = paramiko_session(address, negotiation, offered)
        if negotiation in negotiated:
            assert negotiated[negotiation] == offered
    else:
        asyncssh_session(address, negotiation, offered)


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize(("profile", "negotiation", "offered", "refused"), CASES)
def test_an_algorithm_outside_the_profile_is_refused(askpass_env, profile_lists, client, profile, negotiation,
                                                    offered, refused):
    address, name = address_of(profile), refused_name(refused, client)
    message = REFUSAL[client][negotiation]
    if client == "openssh":
        # Verbose: SSH_OPTS' LogLevel=ERROR would hide the refusal, which ssh logs at INFO.
        r = openssh(askpass_env, address, negotiation, name, verbose=True)
        assert r.returncode == 255 and message in r.stderr, r.stderr
        # OpenSSH prints the server's offer: exactly the profile's list (less the
        # key exchange's pseudo-algorithms, which announce extensions).
        offer = re.search(r"Their offer: (\S+)", r.stderr).group(1).split(",")
        offer = [n for n in offer if not n.startswith(("ext-info-", "kex-strict-"))]
        assert offer == profile_lists[profile]["ssh"][LIST[negotiation]]
    elif client == "paramiko":
        assert_library_refused(paramiko_session, (paramiko.SSHException,), address, negotiation, name, message)
    else:
        assert_library_refused(asyncssh_session, (asyncssh.Error,), address, negotiation, name, message)


def negotiated_by_openssh(env, address):
    """The key exchange and host key algorithm OpenSSH negotiates with its defaults."""
    r = openssh(env, address, None, None, verbose=True)
    assert r.returncode == 0, r.stderr
    kex = re.search(r"debug1: kex: algorithm: (\S+)", r.stderr).group(1)
    hostkey = re.search(r"debug1: kex: host key algorithm: (\S+)", r.stderr).group(1)
    return kex, hostkey


# OpenSSH's client (10.0) with its defaults, against each profile: the build negotiates a
# post-quantum hybrid and the client's first host key type; each platform profile, its own choice.
DEFAULT_NEGOTIATION = {
    "modern": (None, "ssh-ed25519"),
    "cisco_iosxe": (("curve25519-sha256",), "ecdsa-sha2-nistp256"),
    "arista_eos": (("curve25519-sha256",), "rsa-sha2-512"),
}


def modern_kex(openssh_version):
    """The hybrid a `modern` device's sshd agrees with OpenSSH 10.0's client: ML-KEM from
    OpenSSH 9.9 on (10.0 on Debian 13), Streamlined NTRU Prime before (9.2 on Debian 12)."""
    release = re.match(r"OpenSSH_(\d+)\.(\d+)", openssh_version)
    assert release, openssh_version
    if (int(release.group(1)), int(release.group(2))) >= (9, 9):
        return ("mlkem768x25519-sha256",)
    return ("sntrup761x25519-sha512@openssh.com", "sntrup761x25519-sha512")


@pytest.mark.parametrize(("name", "address", "profile"),
                         [(name, address, profile) for (name, address), profile in zip(FLEET, FLEET_PROFILES, strict=True)])
def test_each_fleet_address_negotiates_its_own_profile(askpass_env, fleet_doc, name, address, profile):
    listed = {d["address"]: d for d in fleet_doc["devices"]}
    assert listed[address]["name"] == name and listed[address]["crypto_profile"] == profile
    # The device's metrics endpoint on that address reports the same profile, which every
    # result records (bench_runner.lab_info).
    with urllib.request.urlopen(f"http://{address}:9100/version", timeout=10) as response:
        version = json.loads(response.read())
    assert version["crypto_profile"] == profile and version["crypto"] == listed[address]["crypto"]
    kex, hostkey = negotiated_by_openssh(askpass_env, address)
    kex_choices, want_hostkey = DEFAULT_NEGOTIATION[profile]
    assert kex in (kex_choices or modern_kex(version["openssh_version"])) and hostkey == want_hostkey


def test_a_platform_offers_its_own_profile_by_default():
    for host, platform in ((HOST, "cisco_iosxe"), (HOST10, PLATFORM10)):
        devices = https_json(host, "/admin/fleet")["devices"]
        assert [d["crypto_profile"] for d in devices] == [platform]
        with urllib.request.urlopen(f"http://{host}:9100/version", timeout=10) as response:
            assert json.loads(response.read())["crypto_profile"] == platform


def test_modern_leaves_every_list_to_the_build(profile_lists):
    modern = profile_lists["modern"]
    for negotiation in ("kex", "host_keys", "ciphers", "macs"):
        assert modern["ssh"][negotiation].startswith("defaults of OpenSSH_")
    assert modern["tls"]["versions"] == ["TLSv1.3"]
    assert modern["tls"]["groups"].startswith("defaults of OpenSSL ")


def tls_handshake(address, version, cipher=None):
    """A TLS handshake offering only that version (and TLS 1.2 cipher suite): what was agreed."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.minimum_version = context.maximum_version = version
    if cipher:
        context.set_ciphers(cipher)
    with socket.create_connection((address, 443), timeout=10) as raw, context.wrap_socket(raw) as s:
        return s.version(), s.cipher()[0]


TLS12 = ssl.TLSVersion.TLSv1_2
# (profile, TLS 1.2 suite or None for TLS 1.3, accepted): cisco_iosxe's TLS 1.2 suites are
# Cisco's (AES-GCM), arista_eos keeps nginx's, modern offers TLS 1.3 only.
TLS_CASES = [
    ("cisco_iosxe", None, True),
    ("cisco_iosxe", "ECDHE-ECDSA-AES128-GCM-SHA256", True),
    ("cisco_iosxe", "ECDHE-ECDSA-CHACHA20-POLY1305", False),
    ("arista_eos", None, True),
    ("arista_eos", "ECDHE-ECDSA-AES128-GCM-SHA256", True),
    ("arista_eos", "ECDHE-ECDSA-CHACHA20-POLY1305", True),
    ("modern", None, True),
    ("modern", "ECDHE-ECDSA-AES128-GCM-SHA256", False),
]


@pytest.mark.parametrize(("profile", "suite", "accepted"), TLS_CASES)
def test_tls_offers_the_profile(profile_lists, profile, suite, accepted):
    tls = profile_lists[profile]["tls"]
    # The expectation follows the lists the device reports.
    listed = suite is None or ("TLSv1.2" in tls["versions"] and (
        isinstance(tls["ciphers_tls12"], str) or suite in tls["ciphers_tls12"]))
    assert listed == accepted
    address = address_of(profile)
    if suite is None:
        assert tls_handshake(address, ssl.TLSVersion.TLSv1_3)[0] == "TLSv1.3"
    elif accepted:
        assert tls_handshake(address, TLS12, suite) == ("TLSv1.2", suite)
    else:
        with pytest.raises(ssl.SSLError):
            tls_handshake(address, TLS12, suite)


# The held device is cisco_iosxe: this key exchange is one its profile offers, and every client
# implements, that the hold leaves out.
HELD_OUT_KEX = "ecdh-sha2-nistp256"


def test_a_held_key_exchange_and_group_are_all_the_device_offers():
    assert HELD_OUT_KEX != HELD_KEX
    (device,) = https_json(HELD_HOST, "/admin/fleet")["devices"]
    assert device["crypto_profile"] == "cisco_iosxe"
    crypto = device["crypto"]
    assert crypto["held"] == {"kex": HELD_KEX, "tls_group": HELD_TLS_GROUP}
    assert crypto["ssh"]["kex"] == [HELD_KEX] and crypto["tls"]["groups"] == [HELD_TLS_GROUP]
    # The other lists stay the profile's, and every result records the hold.
    assert "hmac-sha2-256-etm@openssh.com" in crypto["ssh"]["macs"]
    with urllib.request.urlopen(f"http://{HELD_HOST}:9100/version", timeout=10) as response:
        assert json.loads(response.read())["crypto"] == crypto


@pytest.mark.parametrize("client", CLIENTS)
def test_every_client_negotiates_the_held_key_exchange(askpass_env, client):
    """With its own defaults each client finds the one key exchange held; offering only another
    the profile has, it is refused."""
    if client == "openssh":
        r = openssh(askpass_env, HELD_HOST, None, None, verbose=True)
        assert r.returncode == 0, r.stderr
        assert re.search(r"debug1: kex: algorithm: (\S+)", r.stderr).group(1) == HELD_KEX
        r = openssh(askpass_env, HELD_HOST, "kex", HELD_OUT_KEX, verbose=True)
        assert r.returncode == 255 and REFUSAL["openssh"]["kex"] in r.stderr, r.stderr
        offer = re.search(r"Their offer: (\S+)", r.stderr).group(1).split(",")
        assert [n for n in offer if not n.startswith(("ext-info-", "kex-strict-"))] == [HELD_KEX]
    elif client == "paramiko":
        paramiko_session(HELD_HOST, None, None)
        assert_library_refused(paramiko_session, (paramiko.SSHException,), HELD_HOST, "kex", HELD_OUT_KEX,
                               REFUSAL["paramiko"]["kex"])
    else:
        asyncssh_session(HELD_HOST, None, None)
        assert_library_refused(asyncssh_session, (asyncssh.Error,), HELD_HOST, "kex", HELD_OUT_KEX,
                               REFUSAL["asyncssh"]["kex"])


def curl_with_group(address, group):
    """curl's exit status for one HTTPS request offering only that key exchange group."""
    return subprocess.run(["curl", "-sk", "-o", "/dev/null", "--max-time", "20", "--curves", group,
                           "-u", f"{USERNAME}:{PASSWORD}", f"https://{address}/admin/fleet"],
                          capture_output=True, text=True, timeout=30).returncode


# The post-quantum hybrid group OpenSSL 3.5 offers first by default (the client image's curl has it).
PQ_GROUP = "X25519MLKEM768"


@pytest.mark.parametrize("profile", ["cisco_iosxe", "arista_eos", "modern"])
def test_tls_groups_follow_the_profile(profile_lists, profile):
    """The platform profiles name classical groups, the same on either Debian release; modern
    offers its OpenSSL's defaults, which have the hybrid from OpenSSL 3.5 on (Debian 13)."""
    groups = profile_lists[profile]["tls"]["groups"]
    if profile == "modern":
        build = re.fullmatch(r"defaults of OpenSSL (\d+)\.(\d+)\.\S+", groups)
        assert build, groups
        offered = (int(build.group(1)), int(build.group(2))) >= (3, 5)
    else:
        assert "X25519" in groups and PQ_GROUP not in groups
        offered = False
    address = address_of(profile)
    assert curl_with_group(address, "X25519") == 0
    # No common group, no handshake (curl: 35).
    assert curl_with_group(address, PQ_GROUP) == (0 if offered else 35)


def test_tls_offers_only_the_held_group():
    assert curl_with_group(HELD_HOST, HELD_TLS_GROUP) == 0
    # Another group every TLS library has: no common group, no handshake (curl: 35).
    other = "X25519" if HELD_TLS_GROUP != "X25519" else "prime256v1"
    assert curl_with_group(HELD_HOST, other) == 35
    # A client whose first key share is another group still connects (one extra round trip:
    # the server asks for the held group).
    assert tls_handshake(HELD_HOST, ssl.TLSVersion.TLSv1_3)[0] == "TLSv1.3"
