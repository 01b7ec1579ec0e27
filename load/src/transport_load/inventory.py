"""Which devices the users load: the lab's device, or an inventory file.

The inventory is the one ``bench-runner inventory`` writes (``results/fleet.yaml``, one target
per emulated device, ``lab: true``) and ``bench-runner run --targets`` takes: credentials are
the names of environment variables, never values. Users are spread over the devices round
robin, across workers too (``device_for``).
"""

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class InventoryError(ValueError):
    """The inventory cannot be used."""


@dataclass(frozen=True)
class Device:
    name: str
    host: str
    ssh_port: int = 22
    https_port: int = 443
    netconf_port: int = 830
    h3_port: int = 443
    """UDP (QUIC)."""
    gnmi_port: int = 9339
    gnmi_tls_verify: bool = False
    """Verify the gNMI server's certificate (the lab's devices are self-signed: off)."""
    platform: str = "cisco_iosxe"
    username_env: str = "DEVICE_USERNAME"
    password_env: str = "DEVICE_PASSWORD"
    metrics_url: str | None = None

    def credentials(self, environ: Mapping[str, str] = os.environ) -> tuple[str, str]:
        missing = [n for n in (self.username_env, self.password_env) if not environ.get(n)]
        if missing:
            raise InventoryError(f"device {self.name}: {', '.join(missing)} not set")
        return environ[self.username_env], environ[self.password_env]


@dataclass(frozen=True)
class Inventory:
    lab: bool
    devices: tuple[Device, ...]


_PORTS = ("ssh_port", "https_port", "netconf_port", "h3_port", "gnmi_port")
_KEYS = {
    "name",
    "host",
    *_PORTS,
    "platform",
    "username_env",
    "password_env",
    "metrics_url",
    "gnmi_tls_verify",
}


def _device(entry: Any, position: int) -> Device:
    if not isinstance(entry, dict):
        raise InventoryError(f"target {position}: not a mapping")
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise InventoryError(f"target {position}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "host"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise InventoryError(f"target {position}: {key} is required")
    for key in _PORTS:
        port = entry.get(key, getattr(Device, key))
        if not isinstance(port, int) or not 1 <= port <= 65535:
            raise InventoryError(f"target {entry['name']}: {key} {port!r} is not a port")
    if not isinstance(entry.get("gnmi_tls_verify", False), bool):
        raise InventoryError(f"target {entry['name']}: gnmi_tls_verify is true or false")
    return Device(**{key: value for key, value in entry.items() if value is not None})


def parse_inventory(text: str) -> Inventory:
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("targets"), list):
        raise InventoryError("an inventory is a mapping with a list of targets")
    devices = tuple(_device(entry, n) for n, entry in enumerate(data["targets"], start=1))
    if not devices:
        raise InventoryError("the inventory has no targets")
    names = [device.name for device in devices]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InventoryError(f"duplicate target name(s) {', '.join(duplicates)}")
    return Inventory(lab=bool(data.get("lab", False)), devices=devices)


def load_inventory(path: Path) -> Inventory:
    try:
        return parse_inventory(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InventoryError(f"inventory {path}: {exc}") from exc


def lab_device(environ: Mapping[str, str] = os.environ) -> Inventory:
    """The lab's device from the environment compose gives the runner (DEVICE_HOST...)."""
    host = environ.get("DEVICE_HOST", "device")
    return Inventory(
        lab=True,
        devices=(
            Device(
                name=environ.get("DEVICE_NAME", host),
                host=host,
                ssh_port=int(environ.get("DEVICE_SSH_PORT", "22")),
                https_port=int(environ.get("DEVICE_HTTPS_PORT", "443")),
                netconf_port=int(environ.get("DEVICE_NETCONF_PORT", "830")),
                h3_port=int(environ.get("DEVICE_H3_PORT", "443")),
                gnmi_port=int(environ.get("DEVICE_GNMI_PORT", "9339")),
                metrics_url=environ.get("DEVICE_METRICS_URL"),
            ),
        ),
    )


def device_for(
    devices: tuple[Device, ...], user_number: int, worker_index: int, workers: int
) -> Device:
    """Round robin over the devices, interleaved across workers: worker w's n-th user is the
    (n * workers + w)-th user of the whole run, so two workers never pile on one device."""
    return devices[(user_number * max(workers, 1) + worker_index) % len(devices)]


LAB_NETWORK = ipaddress.ip_network("198.18.0.0/15")
"""The benchmarking range the lab's networks live in (RFC 2544)."""


def check_lab_only(inventory: Inventory) -> None:
    """Load is for the lab's own devices: an inventory marked ``lab: true`` whose hosts are
    addresses in 198.18.0.0/15 or single-label names (the lab's compose services)."""
    if not inventory.lab:
        raise InventoryError(
            "load runs only against the lab's own devices: the inventory must say lab: true"
        )
    for device in inventory.devices:
        try:
            inside = ipaddress.ip_address(device.host) in LAB_NETWORK
        except ValueError:
            inside = "." not in device.host
        if not inside:
            raise InventoryError(f"{device.name}: {device.host} is not a lab host (198.18.0.0/15)")
