"""The fleet's addresses on the device namespace's interface: reachable from the lab network
and impaired like the device's own address."""

import statistics
from collections.abc import Iterator
from ipaddress import IPv4Network

import pytest

from netem_ctl.engines.nfq import NfqEngine
from netem_ctl.fleet import Fleet, FleetAddresses
from netem_ctl.impairment import Impairment
from testbed import DEVICE_INTERFACE, Testbed

from .bounds import assert_delayed
from .conftest import BENCH_PORT

pytestmark = pytest.mark.netns

# In the test bed's 198.19.250.0/24, above the two namespaces' own addresses.
BLOCK = IPv4Network("198.19.250.128/25")


@pytest.fixture
def fleet(bed: Testbed) -> Iterator[FleetAddresses]:
    addresses = FleetAddresses(bed.device, DEVICE_INTERFACE, Fleet(3, BLOCK))
    addresses.ensure()
    yield addresses
    FleetAddresses(bed.device, DEVICE_INTERFACE, Fleet(1, BLOCK)).ensure()
    bed.device.run(["ip", "addr", "del", "198.19.250.129/32", "dev", DEVICE_INTERFACE])


def test_every_fleet_address_is_reachable_and_impaired(
    bed: Testbed, engine: NfqEngine, fleet: FleetAddresses
) -> None:
    assert fleet.missing() == []
    engine.apply(Impairment(rtt_ms=20))
    for address in fleet.fleet.addresses():
        connect = statistics.median(bed.probe("connect", BENCH_PORT, 5, host=str(address)))
        assert_delayed(connect, 20, str(address))


def test_ensure_is_idempotent_and_shrinks(bed: Testbed, fleet: FleetAddresses) -> None:
    fleet.ensure()
    assert fleet.missing() == []
    smaller = FleetAddresses(bed.device, DEVICE_INTERFACE, Fleet(1, BLOCK))
    smaller.ensure()
    shown = bed.device.run(["ip", "-4", "addr", "show", "dev", DEVICE_INTERFACE]).stdout
    assert "198.19.250.129/32" in shown
    assert "198.19.250.130/32" not in shown
