from collections.abc import Iterator
from pathlib import Path

import pytest

from netem_ctl.engines.nfq import NfqEngine
from testbed import DEVICE_INTERFACE, Testbed

from ..conftest import delayer_path

BENCH_PORT = 22
CONTROL_PORT = 8181


@pytest.fixture(scope="module")
def bed() -> Iterator[Testbed]:
    with Testbed() as testbed:
        testbed.serve(BENCH_PORT, CONTROL_PORT)
        yield testbed


@pytest.fixture
def engine(bed: Testbed, tmp_path: Path) -> Iterator[NfqEngine]:
    nfq = NfqEngine(
        bed.device, DEVICE_INTERFACE, (BENCH_PORT, 443, 830), delayer_path() or "", tmp_path
    )
    yield nfq
    nfq.clear()
