"""The HTML report of a real run, opened in a real headless chromium (make test-report).

report.sh measures a short sweep on an isolated lab and makes its report (and a comparison
of two of its runs) with the commands a user runs; this test, in the runner's report-test
image, opens each page from its file as a person would and checks: no console error,
warning or uncaught exception; no request leaves the file (no CDN); every chart the page
says it has is drawn by Vega with marks in it, every skipped one says why; every figure the
page takes from results.json equals it; every PNG is an image of twice its SVG's size with
more than background in it. A screenshot of each page is kept beside it
(``browser-screenshot.png``)."""

import json
import os
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from bench_runner.html_report.build import PNG_SCALE, format_number
from e2e.devtools import Browser
from pngcheck import assert_drawn

RESULTS = Path(os.environ.get("RESULTS_DIR", "/results"))
RENDER_TIMEOUT_S = 90.0

PAGE_FIGURES = """JSON.stringify(Array.from(document.querySelectorAll('span.fig')).map(e => ({
  run: e.dataset.run, series: e.dataset.series || null, path: e.dataset.path,
  value: JSON.parse(e.dataset.value), text: e.textContent})))"""
PAGE_CHARTS = """JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => ({
  name: f.dataset.chart, present: f.dataset.present === '1', rendered: f.dataset.rendered || null,
  marks: f.querySelectorAll('svg g[class^="mark-"] > path, svg g[class^="mark-"] > line,'
    + ' svg g[class^="mark-"] > rect, svg g[class^="mark-"] > g').length,
  width: (f.querySelector('svg') || {getBoundingClientRect: () => ({width: 0})})
    .getBoundingClientRect().width,
  skipped: (f.querySelector('.skipped') || {textContent: ''}).textContent})))"""


def _report_dirs() -> list[Path]:
    run_id = os.environ.get("REPORT_RUN_ID")
    if not run_id:
        pytest.skip("REPORT_RUN_ID unset: run by make test-report (report.sh)")
    dirs = [RESULTS / run_id / "report"]
    compare = os.environ.get("REPORT_COMPARE_DIR")
    if compare:
        dirs.append(RESULTS / compare)
    return dirs


def _resolve(document: dict[str, Any], series: str | None, path: str) -> Any:
    node: Any = document
    if series is not None:
        [node] = [mode for mode in document["modes"] if mode["series"] == series]
    for part in path.split("."):
        node = node[part]
    return node


def _svg_size(path: Path) -> tuple[int, int]:
    root = ElementTree.parse(path).getroot()
    return round(float(root.attrib["width"])), round(float(root.attrib["height"]))


@pytest.fixture(params=["report", "compare"])
def report_dir(request: pytest.FixtureRequest) -> Path:
    dirs = _report_dirs()
    if request.param == "compare" and len(dirs) < 2:
        pytest.skip("no comparison asked for")
    return dirs[0] if request.param == "report" else dirs[1]


def test_static_charts_are_images(report_dir: Path) -> None:
    summary = json.loads((report_dir / "report.json").read_text())
    present = [chart for chart in summary["charts"] if chart["png"]]
    assert present, "the report has no chart at all"
    for chart in present:
        width, height = _svg_size(report_dir / chart["svg"])
        assert_drawn(report_dir / chart["png"], width * PNG_SCALE, height * PNG_SCALE)
    for chart in summary["charts"]:
        assert chart["png"] or chart["note"], f"{chart['name']}: skipped without a note"
    print(f"{report_dir}: {len(present)} charts rendered in {summary['render_seconds']:.1f} s")


def test_page_in_chromium(report_dir: Path) -> None:
    page = report_dir / "index.html"
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "external resource"
    summary = json.loads((report_dir / "report.json").read_text())
    expected = {chart["name"] for chart in summary["charts"] if chart["png"]}
    with Browser() as browser:
        browser.open(page.as_uri())
        rendered = browser.wait_for(
            "document.body && document.body.dataset.chartsRendered", RENDER_TIMEOUT_S
        )
        assert int(rendered) == len(expected)
        charts = json.loads(browser.evaluate(PAGE_CHARTS))
        figures = json.loads(browser.evaluate(PAGE_FIGURES))
        browser.screenshot(report_dir / "browser-screenshot.png")
        problems = browser.problems()
        requests = browser.requests()
    assert problems == [], problems
    outside = [url for url in requests if not url.startswith(("file:", "data:", "blob:", "about:"))]
    assert outside == [], f"the page requested {outside}"

    assert {chart["name"] for chart in charts if chart["present"]} == expected
    for chart in charts:
        if chart["present"]:
            assert chart["rendered"] == "1", chart
            assert chart["marks"] > 0, f"{chart['name']} has no marks: {chart}"
            assert chart["width"] > 100, f"{chart['name']} is empty: {chart}"
        else:
            assert chart["skipped"].startswith("Skipped: "), chart

    documents: dict[str, dict[str, Any]] = {}
    assert len(figures) > 10, figures
    for figure in figures:
        if figure["run"] not in documents:
            documents[figure["run"]] = json.loads(
                (RESULTS / figure["run"] / "results.json").read_text()
            )
        wanted = _resolve(documents[figure["run"]], figure["series"], figure["path"])
        if figure["path"] == "stats.p50_ms" and report_dir.name.startswith("compare-"):
            # the comparison's medians are recomputed from samples_ms: numpy's median is
            # results.json's p50 (linear interpolation) up to rounding
            assert figure["value"] == pytest.approx(wanted, rel=1e-9), figure
        else:
            assert figure["value"] == wanted, figure
        assert figure["text"].startswith(format_number(wanted)), figure
    assert_drawn(report_dir / "browser-screenshot.png", width=1280)
