"""Profile model and the YAML profiles file (re-read on every request, so edits need no restart)."""

from pathlib import Path
from typing import Any, Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .impairment import Impairment


class ProfilesFileError(RuntimeError):
    pass


class Profile(BaseModel):
    """A WAN condition. RTT and jitter are round-trip; loss and rate apply in each direction."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field("custom", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=64)
    rtt_ms: float = Field(ge=0, le=10_000)
    split: float = Field(
        0.5, ge=0, le=1, description="fraction of RTT and jitter applied client->device"
    )
    jitter_ms: float = Field(
        0, ge=0, le=10_000, description="round-trip delay variation, uniform +-jitter_ms"
    )
    loss_pct: float = Field(0, ge=0, le=100, description="random loss per packet, each direction")
    rate_mbit: float = Field(0, ge=0, le=100_000, description="each direction; 0 = unlimited")
    limit_packets: int | None = Field(
        None, ge=1, le=10_000_000, description="queue size; null = rate x delay"
    )
    keep_order: bool = Field(
        False,
        description="with jitter: packets leave in arrival order (false: they may overtake)",
    )
    source: str = ""

    @model_validator(mode="after")
    def jitter_within_rtt(self) -> Self:
        if self.jitter_ms > self.rtt_ms:
            raise ValueError("jitter_ms must not exceed rtt_ms (the delay cannot go negative)")
        return self

    def impairment(self) -> Impairment:
        return Impairment(
            rtt_ms=self.rtt_ms,
            split=self.split,
            jitter_ms=self.jitter_ms,
            loss_pct=self.loss_pct,
            rate_mbit=self.rate_mbit,
            limit_packets=self.limit_packets,
            keep_order=self.keep_order,
        )

    def effective(self) -> dict[str, Any]:
        """The profile as applied: queue limits resolved, per-direction figures spelled out."""
        impairment = self.impairment()
        return {
            **self.model_dump(),
            "directions": {
                "toward_device": vars(impairment.toward_device()),
                "from_device": vars(impairment.from_device()),
            },
        }


CLEARED = Profile(name="none", rtt_ms=0, source="impairment cleared (DELETE /profile)")


class ProfilesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    profiles: list[Profile]

    @model_validator(mode="after")
    def unique_names(self) -> Self:
        names = [profile.name for profile in self.profiles]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"duplicate profile names: {', '.join(duplicates)}")
        return self


def load_profiles(path: Path) -> dict[str, Profile]:
    try:
        document = yaml.safe_load(path.read_text())
        return {profile.name: profile for profile in ProfilesFile.model_validate(document).profiles}
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise ProfilesFileError(f"{path}: {exc}") from exc
