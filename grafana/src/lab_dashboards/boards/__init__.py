"""Every dashboard, by the file name it is provisioned from."""

from collections.abc import Callable
from typing import Any

from lab_dashboards.boards import (
    bad_links,
    client_libraries,
    fleet_jobs,
    gnmi,
    latency_sweep,
    load,
    model_driven,
    netconf,
    nightly_trends,
    remote_sites,
    resources,
    transport_comparison,
    tunnels,
)

BOARDS: dict[str, Callable[[], dict[str, Any]]] = {
    "transport-comparison.json": transport_comparison.build,
    "latency-sweep.json": latency_sweep.build,
    "bad-links.json": bad_links.build,
    "client-libraries.json": client_libraries.build,
    "netconf.json": netconf.build,
    "gnmi.json": gnmi.build,
    "model-driven.json": model_driven.build,
    "tunnels.json": tunnels.build,
    "remote-sites.json": remote_sites.build,
    "fleet-jobs.json": fleet_jobs.build,
    "resources.json": resources.build,
    "nightly-trends.json": nightly_trends.build,
    "load.json": load.build,
}
