"""The committed dashboards are exactly what the code generates, and pass the lint."""

import json
from pathlib import Path

from lab_dashboards.boards import BOARDS
from lab_dashboards.generate import rendered, stale
from lab_dashboards.lint import lint_directory


def test_committed_dashboards_are_the_generated_ones(dashboards_dir: Path) -> None:
    assert stale(dashboards_dir) == []


def test_committed_dashboards_pass_the_lint(dashboards_dir: Path, provisioning_dir: Path) -> None:
    assert lint_directory(dashboards_dir, provisioning_dir) == []


def test_generation_is_deterministic() -> None:
    assert rendered() == rendered()


def test_every_dashboard_links_to_the_others_by_tag() -> None:
    for name, build in BOARDS.items():
        links = build()["links"]
        assert [link["tags"] for link in links] == [["transport-lab"]], name
        assert links[0]["includeVars"], name
        assert links[0]["keepTime"], name


def test_uids_are_the_stable_urls(dashboards_dir: Path) -> None:
    uids = {json.loads(path.read_text())["uid"] for path in dashboards_dir.glob("*.json")}
    assert uids == {
        "transport-comparison",
        "latency-sweep",
        "bad-links",
        "client-libraries",
        "netconf",
        "gnmi",
        "model-driven",
        "tunnels",
        "remote-sites",
        "fleet-jobs",
        "resources",
        "nightly-trends",
        "load",
    }


def test_the_home_dashboard_is_provisioned(provisioning_dir: Path, dashboards_dir: Path) -> None:
    """compose.yaml makes transport-comparison.json Grafana's home dashboard."""
    assert (dashboards_dir / "transport-comparison.json").exists()
    provider = (provisioning_dir / "dashboards" / "dashboards.yml").read_text()
    assert "/var/lib/grafana/dashboards" in provider
