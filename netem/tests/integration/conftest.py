from collections.abc import Iterator
from pathlib import Path

import pytest

from netem_ctl.engines.nfq import NfqEngine
from netem_ctl.engines.ports import Ports
from testbed import DEVICE_INTERFACE, Testbed

from ..conftest import delayer_path

BENCH_PORT = 22
CONTROL_PORT = 8181
QUIC_PORT = 443  # impaired for UDP; UDP on BENCH_PORT is served, but not impaired
BURST_PORT = 4433  # impaired for UDP and left free: the device's own sender binds it
PORTS = Ports(tcp=(BENCH_PORT, 443, 830), udp=(QUIC_PORT, BURST_PORT))


@pytest.fixture(scope="module")
def bed() -> Iterator[Testbed]:
    with Testbed() as testbed:
        testbed.serve(BENCH_PORT, CONTROL_PORT, QUIC_PORT)
        yield testbed


@pytest.fixture
def engine(bed: Testbed, tmp_path: Path) -> Iterator[NfqEngine]:
    nfq = NfqEngine(bed.device, DEVICE_INTERFACE, PORTS, delayer_path() or "", tmp_path)
    yield nfq
    nfq.clear()
