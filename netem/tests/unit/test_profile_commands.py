"""The exact netem and delayer parameters every shipped profile produces, per direction."""

import pytest

from netem_ctl.engines.nfq import delayer_params
from netem_ctl.engines.tc import netem_args
from netem_ctl.profiles import load_profiles

from .shell import command

# profile -> one-way delay and jitter (both directions, split 0.5), loss % in each direction,
# queue limit (twice a 1 Gbit/s sender's packets in flight over delay + jitter, at least 1000)
# and whether jittered packets keep their order.
EXPECTED = {
    "campus": (1_000, 0, "0", 1000, False),
    "regional": (15_000, 0, "0", 2500, False),
    "leo": (22_500, 0, "0", 3750, False),
    "continental": (35_000, 0, "0", 5834, False),
    "intercontinental": (75_000, 0, "0", 12500, False),
    "transpacific": (87_500, 0, "0", 14584, False),
    "geo": (300_000, 0, "0", 50000, False),
    **{
        f"{base}-loss-{loss}": (delay_us, 0, loss, limit, False)
        for base, delay_us, limit in (("regional", 15_000, 2500), ("continental", 35_000, 5834))
        for loss in ("0.1", "0.5", "1", "2")
    },
    "regional-jitter": (15_000, 6_000, "0", 3500, False),
    "regional-jitter-fifo": (15_000, 6_000, "0", 3500, True),
    "leo-starlink": (22_500, 7_200, "1", 4950, True),
    "lte": (27_500, 6_000, "0", 5584, True),
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
    delay_us, jitter_us, loss, limit, keep_order = EXPECTED[name]
    rate = "10000000kbit" if keep_order else "0kbit"  # netem keeps the order only with a rate
    impairment = shipped[name].impairment()
    for direction in (impairment.toward_device(), impairment.from_device()):
        assert netem_args(direction) == command(
            f"netem limit {limit} delay {delay_us}us {jitter_us}us loss random {loss}% rate {rate}"
        )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_nfq_delayer_parameters(shipped, name):
    delay_us, jitter_us, loss, limit, keep_order = EXPECTED[name]
    impairment = shipped[name].impairment()
    for direction in (impairment.toward_device(), impairment.from_device()):
        assert delayer_params(direction, 1) == (
            f"generation=1\ndelay_us={delay_us}\njitter_us={jitter_us}\n"
            f"loss_ppm={round(float(loss) * 10_000)}\nrate_bps=0\nlimit_packets={limit}\n"
            f"keep_order={int(keep_order)}\n"
        )
