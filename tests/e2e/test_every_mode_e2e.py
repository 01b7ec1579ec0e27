"""Every mode with its floor client at `local` and `regional`: NETCONF in both framings at the
smallest and the largest reply, tunnels at their default bulk size. Few iterations: this proves
each mode runs, publishes and obeys physics, the default-plan tests prove the statistics."""

import pytest

from conftest import (
    EVERY_MODE_ITERATIONS,
    FLOOR_CLIENTS,
    FLOOR_MODES,
    FRAMINGS,
    REPLY_BYTES,
    BenchRun,
)

REGIONAL_RTT_MS = 30.0


@pytest.fixture(params=["local", "regional"])
def every_mode(request: pytest.FixtureRequest, every_mode_sweep: dict[str, BenchRun]) -> BenchRun:
    return every_mode_sweep[request.param]


@pytest.fixture
def every_mode_regional(every_mode_sweep: dict[str, BenchRun]) -> BenchRun:
    return every_mode_sweep["regional"]


def test_every_mode_runs_with_its_floor_client(every_mode: BenchRun) -> None:
    assert every_mode.exit_code == 0, every_mode.output[-3000:]
    modes = every_mode.results["modes"]
    assert {m["mode"] for m in modes} == FLOOR_MODES
    for mode in modes:
        label = f"{mode['mode']} {mode['parameters']}"
        assert mode["client"] in FLOOR_CLIENTS, label
        assert mode["ok"], (label, mode["error_messages"])
        assert mode["published"], label
        assert mode["stats"]["n"] == EVERY_MODE_ITERATIONS, label
        assert mode["stats"]["errors"] == 0, label


def test_netconf_runs_in_both_framings_at_every_reply_size(every_mode: BenchRun) -> None:
    for name in (
        "netconf/fresh-session",
        "netconf/reuse-session",
        "netconf/batch-rpc",
        "netconf/edit-commit",
    ):
        runs = [m for m in every_mode.results["modes"] if m["mode"] == name]
        framings = {m["parameters"]["framing"] for m in runs}
        assert framings == set(FRAMINGS), name
        if name != "netconf/edit-commit":  # its replies are <ok/>, whatever the size asked for
            sizes = {m["parameters"]["reply_bytes"] for m in runs}
            assert sizes == set(REPLY_BYTES), name


def test_large_netconf_replies_cross_the_wire(every_mode: BenchRun) -> None:
    """A 1 MB reply per command really travels: the wire carries at least the replies."""
    for mode in every_mode.results["modes"]:
        parameters = mode["parameters"] or {}
        if (
            mode["mode"] in ("netconf/reuse-session", "netconf/batch-rpc")
            and parameters.get("reply_bytes") == REPLY_BYTES[-1]
        ):
            assert mode["wire"]["available"], mode["wire"]["reason"]
            floor = len(mode["commands"]) * REPLY_BYTES[-1]
            assert all(it["bytes_in"] >= floor for it in mode["wire"]["per_iteration"]), mode[
                "parameters"
            ]


def test_wire_round_trips_reach_the_protocol_minimum(every_mode: BenchRun) -> None:
    for mode in every_mode.results["modes"]:
        assert mode["wire"]["available"], mode["wire"]["reason"]
        for iteration in mode["wire"]["per_iteration"]:
            assert iteration["round_trips"] >= mode["min_round_trips"], (
                mode["mode"],
                mode["parameters"],
            )


def test_regional_obeys_physics(every_mode_regional: BenchRun) -> None:
    for mode in every_mode_regional.results["modes"]:
        # The added delay, over the unimpaired port: a busy machine slows both alike.
        check = mode["rtt_check"]
        assert abs(check["added_rtt_ms"] - REGIONAL_RTT_MS) <= check["tolerance_ms"], mode["mode"]
        floor = mode["min_round_trips"] * REGIONAL_RTT_MS
        assert mode["stats"]["min_ms"] >= floor, (
            mode["mode"],
            mode["parameters"],
            mode["stats"]["min_ms"],
            floor,
        )


def test_the_sweep_models_regional_from_its_local_run(
    every_mode_sweep: dict[str, BenchRun],
) -> None:
    """One `bench-runner run` over two profiles is one sweep: regional's round-trip model
    starts from the same series' p50 at local."""
    local, regional = every_mode_sweep["local"], every_mode_sweep["regional"]
    assert local.results["sweep"] == regional.results["sweep"]
    local_p50 = {m["series"]: m["stats"]["p50_ms"] for m in local.results["modes"]}
    for mode in regional.results["modes"]:
        model = mode["rtt_model"]
        assert model is not None, mode["series"]
        assert model["local_run_id"] == local.run_id
        assert model["local_p50_ms"] == local_p50[mode["series"]]
        assert model["round_trips_source"] == "wire"
        assert model["round_trips"] >= mode["min_round_trips"], mode["series"]
        assert model["predicted_p50_ms"] == pytest.approx(
            model["local_p50_ms"] + model["round_trips"] * model["added_rtt_ms"]
        )
