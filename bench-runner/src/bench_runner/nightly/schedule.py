"""The crontab the scheduler's supercronic runs, generated from NightlyConfig at container
start, so a wrong value stops the container at once with its name instead of failing at
two in the morning."""

import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bench_runner.nightly.config import NightlyConfig
from bench_runner.plan import PlanError, load_plan

JOB_COMMAND = "bench-runner nightly"
# Digits, names (JAN, MON), ranges, steps, lists and cronexpr's L W # ?; @-macros whole.
_FIELD = re.compile(r"[0-9A-Za-z*/,?#-]+")
_MACRO = re.compile(r"@(yearly|annually|monthly|weekly|daily|midnight|hourly)")


class ScheduleError(ValueError):
    """A setting of the schedule is wrong; the message names it."""


def check_schedule(schedule: str) -> str:
    """Refuse what is not one cron expression: supercronic would read anything after a
    newline as more crontab lines, and a wrong field count as a command."""
    text = schedule.strip()
    if _MACRO.fullmatch(text):
        return text
    fields = text.split()
    if not 5 <= len(fields) <= 7 or not all(_FIELD.fullmatch(field) for field in fields):
        raise ScheduleError(
            f"NIGHTLY_SCHEDULE={schedule!r} is not a cron schedule: five fields "
            '(minute hour day month weekday, e.g. "0 2 * * *") or a macro such as @daily'
        )
    return " ".join(fields)


def check_timezone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ScheduleError(
            f"CRON_TZ={name!r} is not a time zone name (e.g. UTC, Europe/Paris)"
        ) from exc
    return name


def crontab(config: NightlyConfig) -> str:
    """The crontab text; the plan is loaded once here so that a typo in it is found now."""
    schedule = check_schedule(config.nightly_schedule)
    timezone = check_timezone(config.cron_tz)
    try:
        load_plan(config.nightly_plan)
    except PlanError as exc:
        raise ScheduleError(f"NIGHTLY_PLAN={config.nightly_plan!r}: {exc}") from exc
    return (
        "# Generated at container start from NIGHTLY_SCHEDULE and CRON_TZ (.env).\n"
        f"CRON_TZ={timezone}\n"
        f"{schedule} {JOB_COMMAND}\n"
    )
