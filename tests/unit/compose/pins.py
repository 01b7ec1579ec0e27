"""compose.yaml pins every image version (``${VAR:-image:tag}``): the one place they are set.
Checks that what must agree with them does: the README's table of services, the Grafana
version the generated dashboards carry, the Kubernetes manifests in deploy/k8s/, and that no
other file pins an official image.
Run from the repository root; exit 1 naming each disagreement."""

import re
import subprocess
import sys
from pathlib import Path

README_NAMES = {
    "PROMETHEUS_IMAGE": "Prometheus",
    "INFLUXDB_IMAGE": "InfluxDB",
    "PUSHGATEWAY_IMAGE": "Prometheus Pushgateway",
    "ALERTMANAGER_IMAGE": "Prometheus Alertmanager",
    "GRAFANA_IMAGE": "Grafana",
}
"""How the README's "What runs where" table names each pinned service."""
K8S_DIR = "deploy/k8s/"
"""Manifests that repeat compose.yaml's pins, which must agree with them."""
OFFICIAL = re.compile(r"\b(prom/prometheus|prom/pushgateway|prom/alertmanager|influxdb|grafana/grafana):v?\d+\.\d+[\w.]*")


def pins(compose: str) -> dict[str, str]:
    """Variable -> its default image in compose.yaml."""
    return dict(re.findall(r"\$\{(\w+_IMAGE):-([^}]+)\}", compose))


def version(image: str) -> str:
    return image.rsplit(":", 1)[1].removeprefix("v")


def disagreements(root: Path) -> list[str]:
    pinned = pins((root / "compose.yaml").read_text())
    problems = []
    services = (root / "README.md").read_text().split("## What runs where", 1)[1]
    services = services.split("\n## ", 1)[0]
    for variable, name in README_NAMES.items():
        wanted = version(pinned[variable])
        shown = re.search(rf"\| {re.escape(name)} (\d[\d.]*)", services)
        if shown is None or not wanted.startswith(shown.group(1)):
            problems.append(f"README.md: {name} is {shown and shown.group(1)}, compose.yaml pins "
                            f"{wanted}")
    board = (root / "grafana/src/lab_dashboards/board.py").read_text()
    grafana = re.search(r'GRAFANA_VERSION = "([^"]+)"', board)
    if grafana is None or grafana.group(1) != version(pinned["GRAFANA_IMAGE"]):
        problems.append(f"grafana/src/lab_dashboards/board.py: GRAFANA_VERSION "
                        f"{grafana and grafana.group(1)}, compose.yaml pins "
                        f"{version(pinned['GRAFANA_IMAGE'])}")
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.split()
    for name in tracked:
        path = root / name
        if name == "compose.yaml" or path.suffix not in {".yaml", ".yml", ".mk", ""} \
                and path.name not in {"Makefile", "Dockerfile", ".env.example"}:
            continue
        if not path.is_file():
            continue
        if name.startswith(K8S_DIR):
            # Kubernetes manifests cannot read compose's variables: they name the same
            # images, and must name exactly the versions compose.yaml pins.
            for match in OFFICIAL.finditer(path.read_text(errors="replace")):
                if match.group(0) not in pinned.values():
                    problems.append(f"{name}: {match.group(0)}, compose.yaml pins "
                                    f"{sorted(pinned.values())}")
            continue
        if match := OFFICIAL.search(path.read_text(errors="replace")):
            problems.append(f"{name}: pins {match.group(0)} again (compose.yaml is the place)")
    return problems


def main() -> int:
    problems = disagreements(Path.cwd())
    for problem in problems:
        print(f"pins: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
