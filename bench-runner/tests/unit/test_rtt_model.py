"""The latency sweep's round-trip model: local p50 + round trips x added RTT."""

from bench_runner.results import ModeResult, ModeRun, RunResult, apply_rtt_model, local_references
from bench_runner.rtt_probe import RttCheck
from bench_runner.wire.model import WireCounts


def _at(run: RunResult, profile: str, run_id: str) -> RunResult:
    return run.model_copy(
        update={"run_id": run_id, "profile": run.profile.model_copy(update={"name": profile})}
    )


def _verified(mode: ModeResult, added_rtt_ms: float) -> ModeResult:
    return mode.model_copy(
        update={
            "rtt_check": RttCheck(
                applies=True,
                tolerance_ms=3.0,
                added_rtt_ms=added_rtt_ms,
                deviation_ms=0.0,
                passed=True,
                reason=None,
            )
        }
    )


def test_prediction_uses_the_local_p50_and_the_wire_count(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    references = local_references(_at(run, "local", "sweep-local"))
    keep_alive = _verified(run.modes[0], 30.2).model_copy(
        update={"wire": WireCounts(available=True, p50={"round_trips": 2.0})}
    )
    apply_rtt_model([keep_alive], references)
    model = keep_alive.rtt_model
    assert model is not None
    assert model.local_run_id == "sweep-local"
    assert model.local_p50_ms == run.modes[0].stats.p50_ms == 32.0
    assert (model.round_trips, model.round_trips_source) == (2.0, "wire")
    assert model.predicted_p50_ms == 32.0 + 2.0 * 30.2


def test_without_a_wire_count_the_expected_round_trips_are_used(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    references = local_references(_at(run, "local", "l"))
    mode = _verified(run.modes[0], 30.0)
    apply_rtt_model([mode], references)
    assert mode.rtt_model is not None
    assert mode.rtt_model.round_trips_source == "expected"
    assert mode.rtt_model.round_trips == mode.expected_round_trips


def test_no_model_without_a_reference_of_the_same_series(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    assert local_references(run) == {}  # a regional run is nobody's reference
    references = local_references(_at(run, "local", "l"))
    other_version = _verified(run.modes[0], 30.0).model_copy(update={"client_version": "2.0"})
    other_commands = _verified(run.modes[0], 30.0).model_copy(update={"commands": ["show x"]})
    apply_rtt_model([other_version, other_commands], references)
    assert other_version.rtt_model is None
    assert other_commands.rtt_model is None


def test_unpublished_local_modes_are_no_reference(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    refused = run.model_copy(
        update={"modes": [mode.model_copy(update={"published": False}) for mode in run.modes]}
    )
    assert local_references(_at(refused, "local", "l")) == {}


def test_at_local_the_model_is_the_reference_whatever_the_probe_measured(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    local = _at(run, "local", "l")
    mode = _verified(local.modes[0], 0.17).model_copy(update={"configured_rtt_ms": 0.0})
    apply_rtt_model([mode], local_references(local))
    assert mode.rtt_model is not None
    assert mode.rtt_model.added_rtt_ms == 0.0
    assert mode.rtt_model.predicted_p50_ms == mode.stats.p50_ms


def test_noise_below_zero_adds_nothing(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    local = _at(run, "local", "l")
    mode = _verified(local.modes[0], -0.02)
    apply_rtt_model([mode], local_references(local))
    assert mode.rtt_model is not None
    assert mode.rtt_model.added_rtt_ms == 0.0
    assert mode.rtt_model.predicted_p50_ms == mode.stats.p50_ms
