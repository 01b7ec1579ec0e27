"""A step on the held lab, as a hold and a fleet job take one: the run lock held and the
step's profile applied (``held_lab`` puts the previous one back), the RTT verified against
the device's metrics port, and netem's profile read again after the step to see that it
held."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx

from bench_runner.lab_run import Lab, Presenter, UsageError, applied_profile, held_lab
from bench_runner.netem import NetemState
from bench_runner.results import ProfileInfo
from bench_runner.runner import RttVerification, verify_rtt
from bench_runner.settings import Settings


def require_netem(settings: Settings, step: str) -> None:
    """A UsageError when NETEM_URL is empty: a ``step`` (``"a hold"``) sets the profile on the
    lab's netem, so it is refused before anything is asked of the lab."""
    if not settings.netem_url:
        raise UsageError(f"NETEM_URL is empty: {step} sets the profile on the lab's netem")


@dataclass(frozen=True)
class LabStep:
    """The lab held for one step, with the profile netem applied."""

    lab: Lab
    state: NetemState
    profile: ProfileInfo
    reference_port: int
    """The device's metrics port, never impaired: the RTT gate's reference on every address."""

    async def verify_rtt(self, host: str, port: int) -> RttVerification:
        return await verify_rtt(
            host,
            port,
            self.profile.rtt_ms,
            applies=True,
            reference_port=self.reference_port,
            jitter_ms=self.profile.jitter_ms,
        )

    def unchanged(self) -> bool:
        """Whether netem still has the profile as the step applied it; raises NetemError or
        httpx.HTTPError when it cannot be read."""
        now = self.lab.netem.current()
        return (now.instance, now.generation) == (self.state.instance, self.state.generation)


@contextmanager
def lab_step(
    settings: Settings, profile: str, wait_for_lab_s: float, run_id: str, presenter: Presenter
) -> Iterator[LabStep]:
    """The lab held and ``profile`` applied for one step (``require_netem`` first)."""
    with held_lab(settings.netem_url, wait_for_lab_s, run_id, True, presenter) as lab:
        assert lab is not None  # held: the lab's profile is set
        state = lab.apply(profile)
        url = httpx.URL(settings.device_metrics_url)
        reference_port = url.port or (443 if url.scheme == "https" else 80)
        yield LabStep(lab, state, applied_profile(state), reference_port)
