"""What a scheduled run does and when, from the environment (.env through compose)."""

from pydantic_settings import BaseSettings, SettingsConfigDict

NIGHTLY_PREFIX = "nightly-"
"""Run ids of scheduled runs start with it; their pruning touches nothing else."""


class NightlyConfig(BaseSettings):
    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    nightly_schedule: str = "0 2 * * *"
    """A cron schedule (five fields, or supercronic's six or seven, or @daily and the like)."""
    cron_tz: str = "UTC"
    """The time zone the schedule is read in (an IANA name)."""
    nightly_plan: str = "nightly"
    """A built-in plan or a plan file the container can read (e.g. under /results)."""
    results_keep_days: int = 400
    """Scheduled runs older than this are deleted after a successful one; 0 keeps all."""
