"""How often the gate finds a step and how often it cries wolf, on synthetic nights
(``make bench-verdicts``; ``python -m bench_runner.verdicts.simulation --help``).

A trial is one series over ``baseline_nights + null_nights + 2`` nights of ``iterations``
samples each. Night k's true median is ``100 ms x exp(drift x e_k)``, ``e_k`` standard
normal and independent from night to night (the night-to-night drift of a shared lab);
each sample is that median times ``1 + noise x e``. From night ``baseline_nights`` on,
every night is judged against the nights before it: the ``null_nights`` nights are the
false-alarm opportunities (a regression or an improvement is a false alarm;
``unchanged`` and ``within_noise`` are not), then every
true median steps up by ``step`` and the step is detected when the first or the second
night after it is judged a regression. The contrast is the test it replaces: a two-sided
Mann-Whitney U test of tonight's samples against last night's at p < 0.05, on the same
nights. Trials draw from one generator seeded with ``seed``.
"""

import argparse
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from scipy.stats import mannwhitneyu

from bench_runner.verdicts.config import VerdictConfig
from bench_runner.verdicts.gate import gate, night_of

BASE_MS = 100.0
MW_ALPHA = 0.05
QUIET_VERDICTS = frozenset({"unchanged", "within_noise"})
"""What a quiet night may be judged without a false alarm: neither ranks it."""


@dataclass(frozen=True)
class Scenario:
    noise: float
    """Relative standard deviation of one iteration."""
    drift: float
    """Relative standard deviation of a night's true median."""
    step: float = 0.05
    iterations: int = 20
    null_nights: int = 10


@dataclass(frozen=True)
class Figures:
    noise_pct: float
    drift_pct: float
    step_pct: float
    trials: int
    detected_within_2_nights_pct: float
    false_alarms_per_mode_night_pct: float
    mann_whitney_detected_within_2_nights_pct: float
    mann_whitney_false_alarms_per_mode_night_pct: float


def simulate(scenario: Scenario, trials: int, seed: int, config: VerdictConfig) -> Figures:
    """The scenario's detection and false-alarm rates, gate and Mann-Whitney."""
    rng = np.random.default_rng(seed)
    start = config.baseline_nights
    step_night = start + scenario.null_nights
    n_nights = step_night + 2
    detected = mw_detected = alarms = mw_alarms = 0
    for _ in range(trials):
        truth = BASE_MS * np.exp(scenario.drift * rng.standard_normal(n_nights))
        truth[step_night:] *= 1 + scenario.step
        noise = 1 + scenario.noise * rng.standard_normal((n_nights, scenario.iterations))
        samples = truth[:, None] * noise
        nights = [night_of(row.tolist()) for row in samples]
        p_values = mannwhitneyu(samples[start:], samples[start - 1 : -1], axis=1).pvalue
        mw = np.asarray(p_values) < MW_ALPHA
        verdicts = [gate(nights[:k], nights[k], config).verdict for k in range(start, n_nights)]
        null = scenario.null_nights
        alarms += sum(verdict not in QUIET_VERDICTS for verdict in verdicts[:null])
        mw_alarms += int(np.count_nonzero(mw[:null]))
        detected += "regression" in verdicts[null:]
        mw_detected += bool(mw[null:].any())
    null_nights = trials * scenario.null_nights
    return Figures(
        noise_pct=100 * scenario.noise,
        drift_pct=100 * scenario.drift,
        step_pct=100 * scenario.step,
        trials=trials,
        detected_within_2_nights_pct=100 * detected / trials,
        false_alarms_per_mode_night_pct=100 * alarms / null_nights,
        mann_whitney_detected_within_2_nights_pct=100 * mw_detected / trials,
        mann_whitney_false_alarms_per_mode_night_pct=100 * mw_alarms / null_nights,
    )


SCENARIOS = (Scenario(noise=0.02, drift=0.01), Scenario(noise=0.05, drift=0.02))
"""The issue's two: the one the unit tests hold to its targets, the one only published."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--output", type=Path, help="directory for the JSON figures")
    args = parser.parse_args(argv)
    config = VerdictConfig()
    results = [simulate(scenario, args.trials, args.seed, config) for scenario in SCENARIOS]
    print(
        f"{'noise':>6} {'drift':>6} {'step':>5} {'trials':>6}  {'gate: found in 2 nights':>23}"
        f"  {'false alarms/night':>18}  {'Mann-Whitney: found':>19}  {'false alarms/night':>18}"
    )
    for figures in results:
        print(
            f"{figures.noise_pct:>5.0f}% {figures.drift_pct:>5.0f}% {figures.step_pct:>4.0f}%"
            f" {figures.trials:>6}  {figures.detected_within_2_nights_pct:>22.1f}%"
            f"  {figures.false_alarms_per_mode_night_pct:>17.2f}%"
            f"  {figures.mann_whitney_detected_within_2_nights_pct:>18.1f}%"
            f"  {figures.mann_whitney_false_alarms_per_mode_night_pct:>17.2f}%"
        )
    if args.output is not None:
        now = datetime.now(UTC)
        document = {
            "generated_at": now.isoformat(),
            "seed": args.seed,
            "config": config.model_dump(),
            "scenarios": [asdict(figures) for figures in results],
        }
        args.output.mkdir(parents=True, exist_ok=True)
        path = args.output / f"simulation-{now.strftime('%Y%m%dT%H%M%SZ')}.json"
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"figures: {path}")


if __name__ == "__main__":
    main()
