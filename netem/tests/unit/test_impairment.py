from netem_ctl.impairment import Impairment, auto_limit_packets


def test_split_divides_rtt_and_jitter_between_directions():
    impairment = Impairment(rtt_ms=40, split=0.25, jitter_ms=8, loss_pct=1.5, rate_mbit=10)
    toward, back = impairment.toward_device(), impairment.from_device()
    assert (toward.delay_us, toward.jitter_us) == (10_000, 2_000)
    assert (back.delay_us, back.jitter_us) == (30_000, 6_000)
    assert toward.loss_pct == back.loss_pct == 1.5
    assert toward.rate_kbit == back.rate_kbit == 10_000


def test_neutral_only_when_everything_is_zero():
    assert Impairment(rtt_ms=0).is_neutral
    assert not Impairment(rtt_ms=0, loss_pct=1).is_neutral
    assert not Impairment(rtt_ms=0, rate_mbit=1).is_neutral


def test_auto_limit_covers_rate_times_delay_with_floor():
    assert auto_limit_packets(0, 1) == 1000
    assert auto_limit_packets(0, 300) == 50_000  # 1 Gbit/s x 300 ms, twice, in 1500-byte frames
    assert auto_limit_packets(100, 300) == 5000
    assert Impairment(rtt_ms=600).toward_device().limit_packets == 50_000
    assert Impairment(rtt_ms=600, limit_packets=7).toward_device().limit_packets == 7
