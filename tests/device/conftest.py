"""Shared settings of the device integration tests.

The tests run in the client image (tests/device/Dockerfile) on a private docker network next to
two freshly started device containers (see mk/device.mk, target test-device):
  DEVICE_HOST    cisco_iosxe device, NETCONF base:1.1 offered
  DEVICE10_HOST  second device: DEVICE_PLATFORM=$DEVICE10_PLATFORM, NETCONF base:1.0 only
"""

import os
import socket
import time

import pytest

USERNAME = os.environ["DEVICE_USERNAME"]
PASSWORD = os.environ["DEVICE_PASSWORD"]
HOST = os.environ.get("DEVICE_HOST", "device")
HOST10 = os.environ.get("DEVICE10_HOST", "device10")
PLATFORM10 = os.environ.get("DEVICE10_PLATFORM", "cisco_iosxe")
HOSTNAME = os.environ.get("DEVICE_HOSTNAME", "lab-r1")
HOSTNAME10 = os.environ.get("DEVICE10_HOSTNAME", "lab-r2")


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
    for host in (HOST, HOST10):
        for port in (22, 830):
            _wait_port(host, port, deadline)
