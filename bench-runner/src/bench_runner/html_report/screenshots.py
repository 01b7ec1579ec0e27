"""``make screenshots``: one PNG per panel of every Grafana dashboard, through Grafana's image
renderer (compose profile ``reports``). Unverified on the machine the lab is developed on
(no Grafana image there); it follows Grafana's HTTP API as documented:

1. with the admin's basic auth, once: ``POST /api/serviceaccounts`` (a Viewer service
   account, found by ``GET /api/serviceaccounts/search`` when it exists) and
   ``POST /api/serviceaccounts/<id>/tokens`` (a token living ``TOKEN_TTL_S``);
2. with that token only (``Authorization: Bearer``): ``GET /api/search?type=dash-db``, each
   dashboard's ``GET /api/dashboards/uid/<uid>`` for its panels, and
   ``GET /render/d-solo/<uid>/<slug>?orgId=1&panelId=<id>&width=..&height=..&timeout=..``
   for each panel (Grafana's ``timeout`` in seconds; the HTTP client waits a little longer);
3. the token is deleted (``DELETE /api/serviceaccounts/<id>/tokens/<token id>``).

Run in the runner's container on the lab network (``python -m
bench_runner.html_report.screenshots``), with ``GRAFANA_ADMIN_PASSWORD`` in its environment.
"""

import argparse
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

SERVICE_ACCOUNT = "transport-lab-screenshots"
TOKEN_TTL_S = 900
RENDER_TIMEOUT_S = 60
PANEL_TYPES_WITHOUT_IMAGE = frozenset({"row"})


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel, those inside collapsed rows included; rows themselves are no image."""
    found = []
    for panel in dashboard.get("panels", []):
        if panel.get("type") not in PANEL_TYPES_WITHOUT_IMAGE:
            found.append(panel)
        found += [inner for inner in panel.get("panels", []) if "id" in inner]
    return found


def create_token(admin: httpx.Client) -> tuple[int, int, str]:
    """A Viewer service account's new token: (account id, token id, key)."""
    found = admin.get("/api/serviceaccounts/search", params={"query": SERVICE_ACCOUNT})
    found.raise_for_status()
    accounts = [a for a in found.json()["serviceAccounts"] if a["name"] == SERVICE_ACCOUNT]
    if accounts:
        account_id = int(accounts[0]["id"])
    else:
        created = admin.post(
            "/api/serviceaccounts", json={"name": SERVICE_ACCOUNT, "role": "Viewer"}
        )
        created.raise_for_status()
        account_id = int(created.json()["id"])
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    token = admin.post(
        f"/api/serviceaccounts/{account_id}/tokens",
        json={"name": f"screenshots-{stamp}", "secondsToLive": TOKEN_TTL_S},
    )
    token.raise_for_status()
    body = token.json()
    return account_id, int(body["id"]), str(body["key"])


def screenshots(viewer: httpx.Client, output: Path, width: int, height: int) -> list[Path]:
    written = []
    search = viewer.get("/api/search", params={"type": "dash-db"})
    search.raise_for_status()
    for entry in search.json():
        uid = entry["uid"]
        slug = entry["url"].rstrip("/").rsplit("/", 1)[-1]
        dashboard = viewer.get(f"/api/dashboards/uid/{uid}")
        dashboard.raise_for_status()
        for panel in _panels(dashboard.json()["dashboard"]):
            image = viewer.get(
                f"/render/d-solo/{uid}/{slug}",
                params={
                    "orgId": 1,
                    "panelId": panel["id"],
                    "width": width,
                    "height": height,
                    "tz": "UTC",
                    "timeout": RENDER_TIMEOUT_S,
                },
                timeout=RENDER_TIMEOUT_S + 15,
            )
            image.raise_for_status()
            if not image.content.startswith(b"\x89PNG"):
                raise RuntimeError(f"{uid} panel {panel['id']}: not a PNG")
            path = output / f"{uid}-{panel['id']:03d}.png"
            path.write_bytes(image.content)
            written.append(path)
            print(f"{path.name}  {panel.get('title', '')}")
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grafana", default="http://grafana:3000")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=500)
    options = parser.parse_args()
    password = os.environ.get("GRAFANA_ADMIN_PASSWORD")
    if not password:
        print("GRAFANA_ADMIN_PASSWORD is not set", file=sys.stderr)
        return 2
    results = Path(os.environ.get("RESULTS_DIR", "/results"))
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    output = options.output or results / "screenshots" / stamp
    output.mkdir(parents=True, exist_ok=True)
    with httpx.Client(base_url=options.grafana, auth=("admin", password), timeout=30) as admin:
        account_id, token_id, key = create_token(admin)
        try:
            headers = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=options.grafana, headers=headers, timeout=30) as viewer:
                written = screenshots(viewer, output, options.width, options.height)
        finally:
            admin.delete(f"/api/serviceaccounts/{account_id}/tokens/{token_id}")
    print(f"{len(written)} panels written to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
