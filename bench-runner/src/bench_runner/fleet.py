"""``bench-runner inventory``: the lab's emulated devices as an inventory.

One device container presents a fleet of emulated devices, each on its own address
(emulator/README.md, Fleet). The device lists them at ``GET /admin/fleet``; this turns the
list into the inventory ``--targets`` (and the Locust users) take, marked ``lab: true`` so a
run drives netem's profile and verifies the RTT on every device. Credentials stay
environment variable names, as in every inventory.
"""

from datetime import UTC, datetime

import httpx
import yaml
from pydantic import BaseModel, ValidationError

from bench_runner.settings import Settings
from bench_runner.tls import tls13_context


class FleetError(Exception):
    """The device could not list its fleet."""


class FleetDevice(BaseModel):
    index: int
    name: str
    address: str


class FleetListing(BaseModel):
    """``GET /admin/fleet``."""

    platform: str
    devices: list[FleetDevice]


def fetch_fleet(settings: Settings) -> FleetListing:
    if not settings.device_username or settings.device_password is None:
        raise FleetError("DEVICE_USERNAME and DEVICE_PASSWORD must be set")
    return fetch_fleet_at(
        settings.device_host,
        settings.device_https_port,
        settings.device_username,
        settings.device_password.get_secret_value(),
    )


def fetch_fleet_at(host: str, https_port: int, username: str, password: str) -> FleetListing:
    """``GET /admin/fleet`` of the device at ``host``: the fleet it belongs to (the fleet
    modes ask the run's target for the devices they connect to)."""
    url = f"https://{host}:{https_port}/admin/fleet"
    try:
        response = httpx.get(url, auth=(username, password), verify=tls13_context(), timeout=10.0)
        response.raise_for_status()
        return FleetListing.model_validate_json(response.content)
    except (httpx.HTTPError, ValidationError) as exc:
        raise FleetError(f"{url}: {exc}") from exc


def _metrics_url(settings: Settings, address: str) -> str:
    return str(httpx.URL(settings.device_metrics_url).copy_with(host=address))


def inventory_yaml(listing: FleetListing, settings: Settings, now: datetime) -> str:
    """The inventory document, with a header saying where it came from."""
    document = {
        "lab": True,
        "targets": [
            {
                "name": device.name,
                "host": device.address,
                "ssh_port": settings.device_ssh_port,
                "https_port": settings.device_https_port,
                "netconf_port": settings.device_netconf_port,
                "platform": listing.platform,
                # One container for the whole fleet: its figures are the fleet's. On the
                # device's address, the unimpaired port gives the RTT gate its reference.
                "metrics_url": _metrics_url(settings, device.address),
            }
            for device in sorted(listing.devices, key=lambda device: device.index)
        ],
    }
    header = (
        f"# The lab's {len(listing.devices)} emulated device(s), from "
        f"https://{settings.device_host}/admin/fleet at {now.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}.\n"
        "# Credentials: DEVICE_USERNAME and DEVICE_PASSWORD (every emulated device has the "
        "lab's account).\n"
    )
    return header + yaml.safe_dump(document, sort_keys=False)
