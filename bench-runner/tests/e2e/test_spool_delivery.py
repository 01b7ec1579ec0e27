"""After a run whose InfluxDB was down, then started, then ``bench-runner replay``: every
point the run reported is in InfluxDB and the spool is empty.

Needs a running lab; ``make test-sink-spool`` (spool_outage.sh) does the stopping, starting
and replaying on the host and then runs this file in the bench-runner container with
``SPOOL_TEST_RUN_ID`` and ``SPOOL_TEST_POINTS`` (the count the run reported) set. Without
them it is skipped (failed under CI).
"""

import json
import os
from pathlib import Path

import httpx
import pytest

from bench_runner.settings import Settings
from prerequisites import missing

RUN_ID = os.environ.get("SPOOL_TEST_RUN_ID")
REPORTED_POINTS = int(os.environ.get("SPOOL_TEST_POINTS", "0"))


@pytest.fixture(autouse=True)
def _runs_made_by_the_script() -> None:
    if not RUN_ID:
        missing("needs SPOOL_TEST_RUN_ID: make test-sink-spool")


def influx_count(settings: Settings, query: str) -> int:
    password = settings.influx_password.get_secret_value() if settings.influx_password else ""
    response = httpx.get(
        f"{settings.influx_url}/query",
        timeout=15.0,
        params={"db": settings.influx_db, "q": query},
        auth=(settings.influx_username or "", password),
    )
    response.raise_for_status()
    series = response.json()["results"][0].get("series", [])
    return int(series[0]["values"][0][1]) if series else 0


def test_every_point_of_the_run_arrived_and_the_spool_is_empty() -> None:
    settings = Settings()
    results = json.loads(Path(settings.results_dir, str(RUN_ID), "results.json").read_text())
    published = [mode for mode in results["modes"] if mode["published"]]
    assert published, "the run measured nothing"
    iterations = sum(mode["stats"]["n"] + mode["stats"]["errors"] for mode in published)

    where = f"WHERE run_id = '{RUN_ID}'"
    stored_iterations = influx_count(settings, f"SELECT count(wall_ms) FROM iteration {where}")
    stored_summaries = influx_count(settings, f"SELECT count(n) FROM mode_summary {where}")
    stored_runs = influx_count(settings, f"SELECT count(title) FROM run {where}")
    stored_verdicts = influx_count(settings, f"SELECT count(verdict) FROM verdict {where}")
    assert (stored_iterations, stored_summaries, stored_runs) == (iterations, len(published), 1)
    assert stored_verdicts == len(published)  # one verdict per published series with samples
    stored = stored_iterations + stored_summaries + stored_runs + stored_verdicts
    assert stored == REPORTED_POINTS
    leftovers = sorted(path.name for path in settings.spool_dir.glob(f"{RUN_ID}*"))
    assert leftovers == []
