"""One-file HTML reports of runs, from ``results/`` alone (no InfluxDB, no server, no CDN).

``bench-runner report-html`` writes ``<run>/report/index.html`` with every chart also as PNG
(2x) and SVG under ``<run>/report/charts/``; ``bench-runner compare RUN_A RUN_B`` writes the
same for two runs side by side under ``<RUN_B>/report/compare-<RUN_A>/``; given a fleet
sweep's id, ``report-html`` writes the sweep's report under ``<sweep>/report/``. One Vega-Lite spec
per chart (Vega-Altair) gives the page's interactive chart and, through vl-convert's embedded
renderer, the static files; the page inlines the Vega JavaScript that vl-convert bundles.
"""

from bench_runner.html_report.build import (
    ReportFiles,
    build_comparison,
    build_fleet_report,
    build_report,
)

__all__ = ["ReportFiles", "build_comparison", "build_fleet_report", "build_report"]
