"""The nfq engine between two network namespaces: delays, jitter, loss and rate as configured."""

import statistics
import subprocess
import threading
import time

import pytest

from netem_ctl.engines.nfq import CHAIN_TOWARD_DEVICE, NfqEngine, ipt
from netem_ctl.engines.ports import Ports
from netem_ctl.impairment import Impairment
from testbed import DEVICE_INTERFACE, Testbed

from ..conftest import delayer_path
from .bounds import UNDELAYED_MAX_MS, assert_delayed, slack_ms
from .conftest import BENCH_PORT, BURST_PORT, CONTROL_PORT, QUIC_PORT

pytestmark = pytest.mark.netns


# Where each protocol is impaired: TCP's benchmark port, UDP's QUIC port.
IMPAIRED_PORT = {"tcp": BENCH_PORT, "udp": QUIC_PORT}


def median(bed: Testbed, kind: str, count: int = 20, port: int = BENCH_PORT) -> float:
    return statistics.median(bed.probe(kind, port, count))


def one_way_medians(bed: Testbed, port: int, protocol: str, count: int = 20) -> list[float]:
    """Median milliseconds toward the device and back from it."""
    return [
        statistics.median(samples)
        for samples in zip(*bed.one_way(port, count, protocol), strict=True)
    ]


@pytest.mark.parametrize(
    "split", [1.0, 0.0, 0.5], ids=["client-to-device", "device-to-client", "even"]
)
def test_round_trip_whatever_the_split(bed, engine, split):
    engine.apply(Impairment(rtt_ms=40, split=split))
    for kind in ("connect", "echo"):
        assert_delayed(median(bed, kind), 40, kind)


@pytest.mark.parametrize("split", [0.5, 0.0], ids=["even", "all-device-to-client"])
def test_device_to_client_transfer_is_not_capped_by_held_packets(bed, engine, split):
    """Held in OUTPUT/POSTROUTING, the device's own packets would stay charged to its socket and
    TCP Small Queues would cap the transfer at about two packets per one-way delay (0.38 MB/s at
    30 ms); the detour hands them to FORWARD first, so the cap is the window's, like real netem."""
    size = 4_000_000
    engine.apply(Impairment(rtt_ms=30, split=split))
    elapsed_s = bed.probe("download", BENCH_PORT, size)[0] / 1000
    assert size / elapsed_s / 1e6 >= 2.0, f"{size / elapsed_s / 1e6:.2f} MB/s"


def test_device_udp_sender_is_not_blocked_by_its_held_datagrams(bed, engine):
    """Held in OUTPUT/POSTROUTING, the device's datagrams would stay charged to its socket's send
    buffer, and a QUIC sender of more than a buffer's worth would wait for held datagrams to
    leave: at least one one-way delay, since its first datagram is held that long (measured with
    the rule in POSTROUTING: 1.2 s for these 200 datagrams at 400 ms one way). Through the detour
    they leave the socket at once (1.2 to 1.7 ms), so the burst takes less than one delay."""
    one_way_ms = 400
    engine.apply(Impairment(rtt_ms=one_way_ms, split=0.0))
    elapsed_ms = bed.probe_from_device("udp-burst", BURST_PORT, 200)[0]
    assert elapsed_ms < one_way_ms, f"{elapsed_ms:.0f} ms for the burst"


@pytest.mark.parametrize("protocol", ["tcp", "udp"])
@pytest.mark.parametrize("split", [0.25, 0.5, 1.0])
def test_each_direction_gets_its_share_of_the_delay(bed, engine, split, protocol):
    """UDP (QUIC) the same as TCP: device->client datagrams too cross the detour to queue 2."""
    engine.apply(Impairment(rtt_ms=40, split=split))
    toward, back = one_way_medians(bed, IMPAIRED_PORT[protocol], protocol)
    assert_delayed(toward, 40 * split, f"{protocol} toward the device")
    assert_delayed(back, 40 * (1 - split), f"{protocol} back from the device")


def test_control_port_is_not_delayed(bed, engine):
    engine.apply(Impairment(rtt_ms=100))
    assert median(bed, "connect", port=CONTROL_PORT) <= UNDELAYED_MAX_MS
    assert median(bed, "echo", port=CONTROL_PORT) <= UNDELAYED_MAX_MS


def test_udp_is_matched_on_its_own_ports(bed, engine):
    """Port 22 is impaired for TCP, not for UDP: the rules match protocol and port together."""
    engine.apply(Impairment(rtt_ms=100))
    assert sum(one_way_medians(bed, BENCH_PORT, "udp", 10)) <= UNDELAYED_MAX_MS


def test_empty_udp_list_leaves_udp_undelayed(bed, tmp_path):
    tcp_only = NfqEngine(
        bed.device,
        DEVICE_INTERFACE,
        Ports(tcp=(BENCH_PORT,), udp=()),
        delayer_path() or "",
        tmp_path,
    )
    try:
        tcp_only.apply(Impairment(rtt_ms=100))
        assert "-p udp" not in bed.device.run(ipt("-S")).stdout
        assert sum(one_way_medians(bed, QUIC_PORT, "udp", 10)) <= UNDELAYED_MAX_MS
        assert_delayed(median(bed, "echo", 10), 100, "tcp echo")
    finally:
        tcp_only.clear()


def test_jitter_stays_within_bounds_and_varies(bed, engine):
    engine.apply(Impairment(rtt_ms=20, jitter_ms=10))
    samples = sorted(bed.probe("echo", BENCH_PORT, 60))
    assert samples[0] >= 10 - 0.5, samples
    # The 90th percentile, not the maximum: one round trip descheduled on a busy host is noise.
    assert samples[int(len(samples) * 0.9)] <= 30 + slack_ms(30), samples
    assert statistics.stdev(samples) > 2, samples


def test_jitter_is_uniform_as_configured(bed, engine):
    """Toward the device 40 +- 20 ms, uniform: each decile of 300 one-way delays lies within five
    standard errors of the uniform's (sqrt(q(1-q)/n) x 40 ms: 1.7 to 2.9 ms) plus the delay
    bound's slack above it, never below."""
    engine.apply(Impairment(rtt_ms=40, jitter_ms=20, split=1.0))
    toward = sorted(pair[0] for pair in bed.one_way(QUIC_PORT, 300, "udp"))
    for q in (0.1, 0.25, 0.5, 0.75, 0.9):
        expected = 20 + 40 * q
        error = 5 * (q * (1 - q) / len(toward)) ** 0.5 * 40
        measured = toward[int(q * len(toward))]
        assert expected - error <= measured <= expected + error + slack_ms(expected), (q, measured)


@pytest.mark.parametrize("keep_order", [False, True], ids=["may-reorder", "keep-order"])
def test_jitter_reorders_only_when_the_profile_allows_it(bed, engine, keep_order):
    """Datagrams 0.5 ms apart under +-5 ms of jitter each way: overtaken by the dozen, unless
    the profile keeps the order (each then waits for the one ahead, as behind a FIFO)."""
    engine.apply(Impairment(rtt_ms=20, jitter_ms=20, keep_order=keep_order))
    answered, inversions = bed.probe("udp-order", QUIC_PORT, 200)
    assert answered == 200
    assert (inversions == 0) == keep_order, f"{inversions:.0f} inversions"


@pytest.mark.parametrize(
    ("kind", "delayer"), [("download", "from_device"), ("upload", "toward_device")]
)
def test_loss_is_drawn_per_wire_packet_of_a_bulk_transfer(bed, engine, kind, delayer):
    """TCP hands the stack bursts of up to 64 KiB (GSO); drawn once per burst, "2 %" would drop
    2 % of bursts, dozens of wire packets each. With loss set the kernel segments them before
    the queue: the delayer sees at least one packet per MTU of data, and drops 2 % of them
    (within five standard deviations of the binomial)."""
    loss = 0.02
    size = 4_000_000
    engine.apply(Impairment(rtt_ms=2, loss_pct=loss * 100))
    bed.probe(kind, BENCH_PORT, size)
    time.sleep(1.2)  # the delayers rewrite their stats files every second
    stats = getattr(engine, delayer).stats()
    assert stats["segmented"] == 1
    received = stats["received"]
    assert received >= size / 1500, stats
    tolerance = 5 * (loss * (1 - loss) / received) ** 0.5
    assert abs(stats["dropped_loss"] / received - loss) <= tolerance, stats


def test_delay_only_profiles_take_gso_bursts_whole(bed, engine):
    """Nothing is drawn per packet: bursts stay whole, fewer packets to hold (as before)."""
    engine.apply(Impairment(rtt_ms=2))
    bed.probe("download", BENCH_PORT, 4_000_000)
    time.sleep(1.2)
    assert engine.from_device.stats()["segmented"] == 0


@pytest.mark.parametrize(("protocol", "probe"), [("tcp", "segments"), ("udp", "datagrams")])
def test_loss_rate_matches_within_statistical_tolerance(bed, engine, protocol, probe):
    loss = 0.10
    port = IMPAIRED_PORT[protocol]
    counter = ["INPUT", "-p", protocol, "--dport", str(port)]
    engine.apply(Impairment(rtt_ms=0, loss_pct=loss * 100))
    bed.device.run(["iptables-legacy", "-w", "-I", *counter])
    try:
        bed.probe(probe, port, 3000)
        queued = packet_count(bed, ipt("-L", CHAIN_TOWARD_DEVICE, "-v", "-x", "-n"), protocol)
        delivered = packet_count(
            bed, ["iptables-legacy", "-w", "-L", "INPUT", "-v", "-x", "-n"], protocol
        )
    finally:
        bed.device.run(["iptables-legacy", "-w", "-D", *counter])
    assert queued >= 2000
    measured_loss = 1 - delivered / queued
    tolerance = 5 * (loss * (1 - loss) / queued) ** 0.5  # five standard deviations
    assert abs(measured_loss - loss) <= tolerance, f"loss {measured_loss:.3f} over {queued} packets"


def packet_count(bed: Testbed, listing: list[str], protocol: str) -> int:
    """Packets counted by the first rule naming `protocol` in an `iptables -L -v -x` listing."""
    rules = [line.split() for line in bed.device.run(listing).stdout.splitlines()[2:]]
    return next(int(rule[0]) for rule in rules if protocol in rule)


@pytest.mark.parametrize("kind", ["download", "upload"])
def test_rate_limit_is_roughly_honoured(bed, engine, kind):
    rate_mbit = 8
    size = 1_000_000
    engine.apply(Impairment(rtt_ms=2, rate_mbit=rate_mbit))
    elapsed_s = bed.probe(kind, BENCH_PORT, size)[0] / 1000
    measured_mbit = size * 8 / elapsed_s / 1e6
    assert 0.6 * rate_mbit <= measured_mbit <= 1.1 * rate_mbit, f"{measured_mbit:.2f} Mbit/s"


def test_profile_change_reloads_in_place(bed, engine):
    engine.apply(Impairment(rtt_ms=10))
    pids = (engine.toward_device.process.pid, engine.from_device.process.pid)
    engine.apply(Impairment(rtt_ms=50))
    assert (engine.toward_device.process.pid, engine.from_device.process.pid) == pids
    assert_delayed(median(bed, "echo"), 50)
    assert engine.problems(Impairment(rtt_ms=50)) == []


def test_dead_delayer_black_holes_until_repaired(bed, engine):
    impairment = Impairment(rtt_ms=10)
    engine.apply(impairment)
    engine.from_device.process.kill()
    engine.from_device.process.wait()
    assert any("not running" in problem for problem in engine.problems(impairment))
    # No --queue-bypass: the port goes dark instead of unimpaired.
    with pytest.raises(subprocess.CalledProcessError):
        bed.probe("connect-once", BENCH_PORT, 1)
    engine.apply(impairment)
    assert engine.problems(impairment) == []
    assert_delayed(median(bed, "connect"), 10)


def test_clear_removes_rules_and_delayers(bed, engine):
    engine.apply(Impairment(rtt_ms=30))
    engine.clear()
    assert "NETEM_LAB" not in bed.device.run(ipt("-S")).stdout
    assert not engine.toward_device.is_running()
    assert not engine.from_device.is_running()
    assert median(bed, "connect") <= UNDELAYED_MAX_MS


def test_neutral_profile_installs_nothing(bed, engine):
    engine.apply(Impairment(rtt_ms=0))
    assert "NETEM_LAB" not in bed.device.run(ipt("-S")).stdout


def test_bulk_transfer_is_released_in_batches_without_loss(bed, engine):
    engine.apply(Impairment(rtt_ms=2))
    size = 50_000_000
    elapsed_s = bed.probe("download", BENCH_PORT, size)[0] / 1000
    time.sleep(1.2)  # the delayers rewrite their stats files every second
    data = engine.from_device.stats()
    assert data["received"] == data["accepted"]
    assert data["verdict_errors"] == 0
    assert data["held"] == 0
    # Packets due together leave with one batch verdict (no jitter: arrival order is release order).
    assert data["verdict_messages"] < data["received"], data
    assert size * 8 / elapsed_s / 1e6 >= 200, f"{size * 8 / elapsed_s / 1e6:.0f} Mbit/s"


def test_delayers_outlive_the_thread_that_started_them(bed, engine):
    """The API applies profiles on pool threads that exit when idle; a delayer tied to its
    spawning thread (PR_SET_PDEATHSIG) died with it and the watchdog had to re-apply the
    profile mid-run, invalidating the samples of that moment."""
    impairment = Impairment(rtt_ms=20)
    applier = threading.Thread(target=engine.apply, args=(impairment,))
    applier.start()
    applier.join()
    time.sleep(2)  # several of the delayers' stats periods
    assert engine.problems(impairment) == []
    assert_delayed(median(bed, "echo"), 20, "echo")
