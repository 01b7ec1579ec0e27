"""The exact netem and delayer parameters every shipped profile produces, per direction."""

import pytest

from netem_ctl.engines.nfq import delayer_params
from netem_ctl.engines.tc import netem_args
from netem_ctl.profiles import load_profiles

from .shell import command

# profile -> one-way delay (both directions, split 0.5) and queue limit: twice a 1 Gbit/s
# sender's packets in flight over that delay, at least 1000.
EXPECTED = {
    "campus": (1_000, 1000),
    "regional": (15_000, 2500),
    "leo": (22_500, 3750),
    "continental": (35_000, 5834),
    "intercontinental": (75_000, 12500),
    "transpacific": (87_500, 14584),
    "geo": (300_000, 50000),
}


@pytest.fixture(scope="module")
def shipped(profiles_file):
    return load_profiles(profiles_file)


def test_every_impairing_profile_is_covered(shipped):
    assert set(EXPECTED) == {
        name for name, profile in shipped.items() if not profile.impairment().is_neutral
    }


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tc_netem_arguments(shipped, name):
    delay_us, limit = EXPECTED[name]
    impairment = shipped[name].impairment()
    for direction in (impairment.toward_device(), impairment.from_device()):
        assert netem_args(direction) == command(
            f"netem limit {limit} delay {delay_us}us 0us loss random 0% rate 0kbit"
        )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_nfq_delayer_parameters(shipped, name):
    delay_us, limit = EXPECTED[name]
    impairment = shipped[name].impairment()
    for direction in (impairment.toward_device(), impairment.from_device()):
        assert delayer_params(direction, 1) == (
            f"generation=1\ndelay_us={delay_us}\njitter_us=0\nloss_ppm=0\n"
            f"rate_bps=0\nlimit_packets={limit}\n"
        )
