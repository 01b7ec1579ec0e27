"""Shared settings of the device integration tests.

The tests run in the client image (tests/integration/device/Dockerfile) on a private docker network next to
freshly started device containers (see mk/device.mk, target test-device):
  DEVICE_HOST    cisco_iosxe device, NETCONF base:1.1 offered
  DEVICE10_HOST  second device: DEVICE_PLATFORM=$DEVICE10_PLATFORM, NETCONF base:1.0 only
  FLEET_HOST     a third container presenting FLEET_SIZE emulated devices on the addresses of
                 FLEET_ADDRESSES (a netem sidecar puts them on its interface), with the crypto
                 profiles FLEET_CRYPTO gives them (DEVICE_FLEET_CRYPTO; the others: cisco_iosxe)
  HELD_HOST      a cisco_iosxe device holding one key exchange (HELD_KEX, as DEVICE_CRYPTO_KEX) and
                 one TLS group (HELD_TLS_GROUP, as DEVICE_CRYPTO_TLS_GROUP) fixed, as a crypto sweep does
"""

import ipaddress
import os
import socket
import tempfile
import time

import pytest

USERNAME = os.environ["DEVICE_USERNAME"]
PASSWORD = os.environ["DEVICE_PASSWORD"]
HOST = os.environ.get("DEVICE_HOST", "device")
HOST10 = os.environ.get("DEVICE10_HOST", "device10")
PLATFORM10 = os.environ.get("DEVICE10_PLATFORM", "cisco_iosxe")
HOSTNAME = os.environ.get("DEVICE_HOSTNAME", "lab-r1")
HOSTNAME10 = os.environ.get("DEVICE10_HOSTNAME", "lab-r2")
FLEET_HOST = os.environ.get("FLEET_HOST", "fleet")
HELD_HOST = os.environ.get("HELD_HOST", "held")
HELD_KEX = os.environ.get("HELD_KEX", "diffie-hellman-group14-sha256")
HELD_TLS_GROUP = os.environ.get("HELD_TLS_GROUP", "prime256v1")
_FLEET_BLOCK = ipaddress.IPv4Network(os.environ.get("FLEET_ADDRESSES", "198.18.110.128/25"))
FLEET = [(f"fleet-r{k}", str(_FLEET_BLOCK.network_address + k))
         for k in range(1, int(os.environ.get("FLEET_SIZE", "3")) + 1)]
"""(hostname, address) of each emulated device of the fleet container (hostname fleet-r1)."""


def _fleet_profiles(spec):
    profiles = ["cisco_iosxe"] * len(FLEET)
    for item in filter(None, spec.split(",")):
        indexes, profile = item.split(":")
        first, _, last = indexes.partition("-")
        for k in range(int(first), int(last or first) + 1):
            profiles[k - 1] = profile
    return profiles


FLEET_PROFILES = _fleet_profiles(os.environ.get("FLEET_CRYPTO", "2:modern,3:arista_eos"))
"""The crypto profile of each device of the fleet container (its platform is cisco_iosxe)."""


SSH_OPTS = ["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "PreferredAuthentications=password", "-o", "PubkeyAuthentication=no", "-o", "ConnectTimeout=10"]


@pytest.fixture(scope="module")
def askpass_env():
    """OpenSSH reads the password from an askpass helper (no sshpass needed)."""
    fd, path = tempfile.mkstemp(suffix=".sh")
    with os.fdopen(fd, "w") as f:
        f.write('#!/bin/sh\nprintf "%s\\n" "$DEVICE_PASSWORD"\n')
    os.chmod(path, 0o700)
    env = dict(os.environ, SSH_ASKPASS=path, SSH_ASKPASS_REQUIRE="force", DISPLAY=":0")
    yield env
    os.unlink(path)


def _wait_port(host, port, deadline):
    while True:
        try:
            with socket.create_connection((host, port), timeout=2) as s:
                if port in (22, 830):
                    s.settimeout(2)
                    if s.recv(4).startswith(b"SSH-"):
                        return
                else:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.exit(f"{host}:{port} not reachable", returncode=2)
        time.sleep(0.5)


@pytest.fixture(scope="session", autouse=True)
def devices_up():
    deadline = time.monotonic() + 60
    for host in (HOST, HOST10, FLEET_HOST, HELD_HOST, *(address for _, address in FLEET)):
        for port in (22, 830):
            _wait_port(host, port, deadline)
