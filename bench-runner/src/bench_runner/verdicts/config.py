"""The verdicts' settings, with their defaults written once (a plan's ``verdicts`` field)."""

from pydantic import BaseModel, ConfigDict, Field


class VerdictConfig(BaseModel):
    """How a run's series are judged against the earlier nights."""

    model_config = ConfigDict(extra="forbid")

    baseline_nights: int = Field(default=14, ge=3)
    """The nights before tonight whose median and MAD are the baseline."""
    min_nights: int = Field(default=5, ge=3)
    """Fewer earlier nights than this: ``insufficient_history`` (a MAD of fewer values
    says little about the spread)."""
    z_threshold: float = Field(default=3.0, gt=0)
    """The robust z a change must exceed."""
    min_change_pct: float = Field(default=5.0, ge=0)
    """The smallest change worth a verdict, percent of the baseline median; the mode's
    noise floor raises it."""
    changepoint_nights: int = Field(default=28, ge=4)
    """The nights (tonight included) the change-point search dates a shift in."""
    changepoint_permutations: int = Field(default=199, ge=19)
    """Permutations of the change point's significance test."""
    changepoint_alpha: float = Field(default=0.05, gt=0, lt=1)
    """Its significance level."""
