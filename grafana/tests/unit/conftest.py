"""Where the committed dashboards and provisioning live: the repository's grafana/ (mounted
at /grafana by `make test-dashboards`, or this checkout when run from a source tree)."""

import os
from pathlib import Path

import pytest

GRAFANA_DIR = Path(os.environ.get("GRAFANA_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture
def dashboards_dir() -> Path:
    return GRAFANA_DIR / "dashboards"


@pytest.fixture
def provisioning_dir() -> Path:
    return GRAFANA_DIR / "provisioning"
