"""The lab's fleet as an inventory: what `bench-runner inventory` writes is what
`--targets` reads, marked as the lab's."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench_runner.fleet import FleetDevice, FleetError, FleetListing, fetch_fleet, inventory_yaml
from bench_runner.settings import Settings
from bench_runner.targets import load_inventory

LISTING = FleetListing(
    platform="cisco_iosxe",
    devices=[
        FleetDevice(index=2, name="lab-r2", address="198.18.100.130"),
        FleetDevice(index=1, name="lab-r1", address="198.18.100.129"),
    ],
)


def test_the_inventory_reads_back_as_the_labs_devices(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    now = datetime(2026, 11, 23, 2, 0, tzinfo=UTC)
    path.write_text(inventory_yaml(LISTING, Settings(), now))
    assert path.read_text().startswith("# The lab's 2 emulated device(s), from ")
    inventory = load_inventory(path)
    assert inventory.lab
    assert [(spec.name, spec.host) for spec in inventory.targets] == [
        ("lab-r1", "198.18.100.129"),
        ("lab-r2", "198.18.100.130"),
    ]
    first = inventory.targets[0]
    assert (first.ssh_port, first.https_port, first.netconf_port) == (22, 443, 830)
    assert first.platform == "cisco_iosxe"
    # Credentials by name only; the metrics port on the device's own address (the RTT
    # gate's unimpaired reference).
    assert (first.username_env, first.password_env) == ("DEVICE_USERNAME", "DEVICE_PASSWORD")
    assert first.metrics_url == "http://198.18.100.129:9100"


def test_fetching_without_credentials_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEVICE_USERNAME", raising=False)
    with pytest.raises(FleetError, match="DEVICE_USERNAME and DEVICE_PASSWORD"):
        fetch_fleet(Settings())
