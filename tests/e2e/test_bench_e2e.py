"""The whole lab, end to end: every mode at `local` and `regional`, results, sinks, physics."""

import pytest

from bench_runner.modes import DEFAULT_MODE_NAMES
from bench_runner.results import SCHEMA_VERSION
from conftest import ITERATIONS, RESULTS_DIR, BenchRun, influx_query, prom_wait

DEFAULT_MODES = set(DEFAULT_MODE_NAMES)
REGIONAL_RTT_MS = 30.0


@pytest.fixture(params=["local", "regional"])
def run(request: pytest.FixtureRequest) -> BenchRun:
    fixture: BenchRun = request.getfixturevalue(f"{request.param}_run")
    return fixture


def test_every_mode_succeeds(run: BenchRun) -> None:
    assert run.exit_code == 0, run.output[-3000:]
    assert {m["mode"] for m in run.results["modes"]} == DEFAULT_MODES
    for mode in run.results["modes"]:
        assert mode["ok"], mode
        assert mode["stats"]["n"] == ITERATIONS, mode["mode"]
        assert mode["stats"]["errors"] == 0, mode["error_messages"]
        assert len(mode["samples_ms"]) == ITERATIONS


def test_results_carry_their_context(run: BenchRun) -> None:
    res = run.results
    assert res["schema_version"] == SCHEMA_VERSION
    assert res["run_id"] == run.run_id
    assert res["profile"]["name"] == run.profile
    assert res["profile"]["engine"] in {"tc", "nfq"}
    assert res["profile"]["source"]
    assert res["lab"]["commit"]
    assert res["device"]["hostname"]
    for mode in res["modes"]:
        assert mode["client"], mode["mode"]
        assert mode["client_version"], mode["mode"]
        # Like for like: what an iteration opens and what a request carries.
        assert mode["connections_per_iteration"] is not None, mode["mode"]
        assert mode["commands_per_request"] is not None, mode["mode"]
        assert mode["verified_rtt_ms"] is not None, mode["mode"]
        assert mode["configured_rtt_ms"] == res["profile"]["rtt_ms"]
        assert mode["rtt_check"]["passed"], mode["mode"]
        assert mode["published"], mode["mode"]
        assert mode["resources"]["device_cpu_s"] is not None, mode["mode"]
        assert mode["resources"]["device_memory_peak_bytes"] > 0, mode["mode"]
        if mode["client"] == "asyncssh":
            assert mode["round_trips"]["p50"] >= mode["min_round_trips"], mode["mode"]
    run_dir = RESULTS_DIR / run.run_id
    assert (run_dir / "manifest.json").exists()
    assert (run_dir / "modes.csv").read_text().count("\n") == len(res["modes"]) + 1


def test_every_iteration_is_counted_on_the_wire(run: BenchRun) -> None:
    """Packets, bytes and round trips of every client, counted by the runner's capture."""
    for mode in run.results["modes"]:
        wire = mode["wire"]
        assert wire["available"], (mode["mode"], wire["reason"])
        assert wire["capture_drops"] == 0, mode["mode"]
        assert len(wire["per_iteration"]) == ITERATIONS, mode["mode"]
        for counts in wire["per_iteration"]:
            assert counts["round_trips"] >= mode["min_round_trips"], (mode["mode"], counts)
            assert counts["packets_out"] > 0, mode["mode"]
            assert counts["bytes_in"] > 0, mode["mode"]


def test_wire_count_equals_the_socket_trace(regional_run: BenchRun) -> None:
    """Two independent counts of the same definition: the asyncssh modes' socket trace
    (each write and read of the client) and the packet capture (each payload-carrying
    segment on the wire). They agree where the client reads each answer before it writes
    again; a client slowed by other work may read two segments apart that arrived
    together, or together that arrived apart, and then one iteration's two counts differ by
    a direction change. The median iteration is the same in both, however busy the
    machine (the median ignores the few iterations a busy machine perturbs)."""
    traced = [m for m in regional_run.results["modes"] if m["client"] == "asyncssh"]
    assert traced
    for mode in traced:
        wire = sorted(counts["round_trips"] for counts in mode["wire"]["per_iteration"])
        socket = sorted(mode["round_trips"]["per_iteration"])
        assert len(wire) == len(socket) == ITERATIONS, mode["mode"]
        assert wire[len(wire) // 2] == socket[len(socket) // 2], (mode["mode"], wire, socket)


def test_floor_clients_record_their_phases(run: BenchRun) -> None:
    for mode in run.results["modes"]:
        phases = mode["phases"]
        assert phases is not None, mode["mode"]
        for recorded, wall_ms in zip(phases["per_iteration"], mode["samples_ms"], strict=True):
            assert recorded, mode["mode"]
            assert sum(recorded.values()) <= wall_ms + 0.01, (mode["mode"], recorded, wall_ms)
    fresh = run.mode("ssh/fresh-conn")["phases"]["p50_ms"]
    assert set(fresh) == {
        "tcp_connect",
        "key_exchange",
        "auth",
        "channel_open",
        "commands",
        "close",
    }, fresh
    https = run.mode("https/fresh-conn")["phases"]["p50_ms"]
    assert {"tcp_connect", "tls_handshake", "receive_headers"} <= set(https), https


def test_influxdb_holds_one_point_per_iteration(run: BenchRun) -> None:
    series = influx_query(
        f'SELECT count("wall_ms") FROM "iteration" WHERE "run_id" = \'{run.run_id}\''
        ' GROUP BY "mode"'
    )
    counts = {s["tags"]["mode"]: s["values"][0][1] for s in series}
    assert counts == {mode: ITERATIONS for mode in DEFAULT_MODES}
    counted = influx_query(
        f'SELECT count("wire_round_trips") FROM "iteration" WHERE "run_id" = \'{run.run_id}\''
        ' GROUP BY "mode"'
    )
    assert {s["tags"]["mode"]: s["values"][0][1] for s in counted} == counts
    summaries = influx_query(
        f'SELECT last("p50_ms") FROM "mode_summary" WHERE "run_id" = \'{run.run_id}\''
        ' GROUP BY "mode"'
    )
    assert {s["tags"]["mode"] for s in summaries} == DEFAULT_MODES


def test_prometheus_holds_the_runs_series(run: BenchRun) -> None:
    data = prom_wait(
        f'transport_bench_mode_p50_seconds{{run_id="{run.run_id}"}}', len(DEFAULT_MODES)
    )
    assert {d["metric"]["mode"] for d in data} == DEFAULT_MODES
    for d in data:
        assert d["metric"]["profile"] == run.profile
        assert float(d["value"][1]) * 1000 == pytest.approx(
            run.mode(d["metric"]["mode"])["stats"]["p50_ms"], rel=1e-6
        )


def test_regional_rtt_is_verified(regional_run: BenchRun) -> None:
    """The delay netem added on the mode's port, over the unimpaired one (whatever a busy
    machine adds to both), is the profile's within the gate's tolerance."""
    for mode in regional_run.results["modes"]:
        check = mode["rtt_check"]
        assert check["passed"], mode["mode"]
        assert abs(check["added_rtt_ms"] - REGIONAL_RTT_MS) <= check["tolerance_ms"], mode["mode"]


def test_regional_latency_obeys_physics(local_run: BenchRun, regional_run: BenchRun) -> None:
    """p50 can only reach min_round_trips x RTT if the delay was really applied, and must not
    be absurdly above the round trips the protocol needs plus the local (unimpaired) cost."""
    for mode in regional_run.results["modes"]:
        p50 = mode["stats"]["p50_ms"]
        floor = mode["min_round_trips"] * REGIONAL_RTT_MS
        local_p50 = local_run.mode(mode["mode"])["stats"]["p50_ms"]
        ceiling = 3 * (mode["expected_round_trips"] * REGIONAL_RTT_MS + local_p50)
        assert mode["min_round_trips"] >= 1
        assert floor <= p50 < ceiling, (mode["mode"], floor, p50, ceiling)


def test_prometheus_scrapes_every_lab_target() -> None:
    """The targets the LabTargetDown alert watches are all scraped and up."""
    up = {
        d["metric"]["job"]: d["value"][1]
        for d in prom_wait('up{job=~"device|netem|pushgateway|influxdb"}', 4)
    }
    assert up == {"device": "1", "netem": "1", "pushgateway": "1", "influxdb": "1"}
