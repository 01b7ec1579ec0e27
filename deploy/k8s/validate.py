"""Offline checks of deploy/k8s (no cluster): every Kubernetes object against the API's
JSON schema (kubernetes-validate, strict: unknown fields fail), the kustomization lists every
manifest, the LocustTest carries what the Locust Operator's locust.io/v2 CRD requires, and
the pod keeps NET_ADMIN on netem only. Run by `make test-k8s` in the load test image."""

import sys
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import yaml

HERE = Path(__file__).resolve().parent
KUBERNETES_VERSION = "1.33.0"


def documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(HERE.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                found.append((path.name, document))
    return found


def check_locusttest(document: dict[str, Any]) -> list[str]:
    spec = document.get("spec", {})
    problems = [
        f"LocustTest: spec.{key} missing"
        for key in ("image", "master", "worker")
        if key not in spec
    ]
    if "command" not in spec.get("master", {}):
        problems.append("LocustTest: spec.master.command missing")
    worker = spec.get("worker", {})
    if "command" not in worker or not isinstance(worker.get("replicas"), int):
        problems.append("LocustTest: spec.worker.command and replicas required")
    if " -t " not in f" {spec.get('master', {}).get('command', '')} ":
        problems.append("LocustTest: the master's command must bound the run (-t)")
    return problems


def check_capabilities(document: dict[str, Any]) -> list[str]:
    problems = []
    for container in document["spec"]["template"]["spec"]["containers"]:
        added = ((container.get("securityContext") or {}).get("capabilities") or {}).get("add", [])
        if "NET_ADMIN" in added and container["name"] != "netem":
            problems.append(f"{container['name']}: NET_ADMIN outside netem")
        if container["name"] == "netem" and "NET_ADMIN" not in added:
            problems.append("netem: needs NET_ADMIN")
    return problems


def main() -> int:
    problems: list[str] = []
    listed = set(yaml.safe_load((HERE / "kustomization.yaml").read_text())["resources"])
    files = {path.name for path in HERE.glob("*.yaml")} - {"kustomization.yaml"}
    if listed != files:
        problems.append(f"kustomization resources {sorted(listed)} != files {sorted(files)}")
    checked = 0
    for name, document in documents():
        kind = document.get("kind")
        if kind == "LocustTest":
            problems += check_locusttest(document)
            continue
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            problems.append(f"{name}: {kind} {document['metadata']['name']}: {exc.message}")
        if kind == "Deployment" and document["metadata"]["name"] == "device":
            problems += check_capabilities(document)
        checked += 1
    for problem in problems:
        print(f"deploy/k8s: {problem}", file=sys.stderr)
    print(
        f"deploy/k8s: {checked} objects valid against Kubernetes {KUBERNETES_VERSION}, "
        "LocustTest checked"
        if not problems
        else f"deploy/k8s: {len(problems)} problem(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
