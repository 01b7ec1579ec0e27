"""make screenshots against a fake Grafana: the admin's password only creates the service
account and its token; everything else goes with the token; the render URL and timeout."""

import json
from pathlib import Path

import httpx

from bench_runner.html_report import screenshots

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


def test_token_then_one_png_per_panel(tmp_path: Path) -> None:
    seen: list[tuple[str, str, str]] = []

    def grafana(request: httpx.Request) -> httpx.Response:
        auth = request.headers.get("authorization", "")
        seen.append((request.method, request.url.path, auth.split(" ")[0]))
        path = request.url.path
        if path == "/api/serviceaccounts/search":
            return httpx.Response(200, json={"serviceAccounts": []})
        if path == "/api/serviceaccounts" and request.method == "POST":
            assert json.loads(request.content) == {
                "name": screenshots.SERVICE_ACCOUNT,
                "role": "Viewer",
            }
            return httpx.Response(201, json={"id": 7})
        if path == "/api/serviceaccounts/7/tokens":
            assert json.loads(request.content)["secondsToLive"] == screenshots.TOKEN_TTL_S
            return httpx.Response(200, json={"id": 3, "name": "t", "key": "glsa_x"})
        assert auth == "Bearer glsa_x", path
        if path == "/api/search":
            return httpx.Response(
                200, json=[{"uid": "latency-sweep", "url": "/d/latency-sweep/latency-sweep"}]
            )
        if path == "/api/dashboards/uid/latency-sweep":
            panels = [{"id": 1, "type": "timeseries"},
                      {"id": 2, "type": "row", "panels": [{"id": 3, "type": "table"}]}]  # fmt: skip
            return httpx.Response(200, json={"dashboard": {"panels": panels}})
        if path == "/render/d-solo/latency-sweep/latency-sweep":
            assert request.url.params["timeout"] == str(screenshots.RENDER_TIMEOUT_S)
            assert request.url.params["width"] == "800"
            return httpx.Response(200, content=PNG)
        raise AssertionError(path)

    transport = httpx.MockTransport(grafana)
    with httpx.Client(
        base_url="http://grafana:3000", auth=("admin", "pw"), transport=transport
    ) as admin:
        account, token, key = screenshots.create_token(admin)
    assert (account, token, key) == (7, 3, "glsa_x")
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(
        base_url="http://grafana:3000", headers=headers, transport=transport
    ) as viewer:
        written = screenshots.screenshots(viewer, tmp_path, 800, 400)
    assert [path.name for path in written] == ["latency-sweep-001.png", "latency-sweep-003.png"]
    assert all(path.read_bytes() == PNG for path in written)
    basic = [(method, path) for method, path, scheme in seen if scheme == "Basic"]
    assert basic == [("GET", "/api/serviceaccounts/search"), ("POST", "/api/serviceaccounts"),
                     ("POST", "/api/serviceaccounts/7/tokens")]  # fmt: skip
