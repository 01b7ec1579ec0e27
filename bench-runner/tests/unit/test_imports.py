"""The shape of the package: no module imports another that imports it back, and the
commands that measure nothing (prune, verdicts, report-html) and what the dashboards'
generator reads import no client library."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import bench_runner

PACKAGE = Path(bench_runner.__file__).parent
CLIENT_LIBRARIES = (
    "gevent",
    "ssh2",
    "ssh",
    "pssh",
    "ncclient",
    "scrapli",
    "scrapli_netconf",
    "netmiko",
    "paramiko",
    "aioquic",
    "pygnmi",
    "grpc",
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports, anywhere in it (a function's import
    too): ``from a.b import c`` is ``a.b.c`` when that is a module, else ``a.b``."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = _import_graph()
    assert len(graph) > 50  # the whole package was read
    assert _cycles(graph) == []


def test_a_cycle_is_found_when_there_is_one() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize(
    "modules",
    [
        # bench-runner prune, verdicts, report-html, compare: the CLI and what they run
        ("bench_runner.cli", "bench_runner.prune"),
        ("bench_runner.verdicts.judge", "bench_runner.verdicts.table"),
        ("bench_runner.html_report",),
        # what the dashboards' generator reads of the runner
        ("bench_runner.phases", "bench_runner.wire.model", "bench_runner.wire.timeline"),
        # the catalog itself
        ("bench_runner.modes", "bench_runner.modes.table"),
    ],
)
def test_commands_that_measure_nothing_import_no_client_library(modules: tuple[str, ...]) -> None:
    """In a fresh interpreter: the libraries are loaded only when a mode of theirs runs."""
    probe = (
        f"import sys\nimport {', '.join(modules)}\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {CLIENT_LIBRARIES!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
