"""gnmi_cli, openconfig/gnmi's command-line client, as people type it: one process per Get,
each dialing a channel of its own (``grpc.WithBlock``: TCP, TLS, the HTTP/2 SETTINGS), sending
its one request and exiting. The credentials reach it in the environment it reads them from
with ``-with_user_pass`` (GNMI_USER, GNMI_PASS), never on its command line; the request is the
text form of a GetRequest (``-proto``). Its answer is the GetResponse as text."""

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import REQUEST_TIMEOUT_S
from bench_runner.modes.mode import Mode
from bench_runner.validation import IterationError, first_line

GNMI_CLI = "gnmi_cli"
BUILDINFO = Path("/usr/local/share/gnmi_cli.buildinfo")
"""``go version -m gnmi_cli``, written when the runner's image built it (no version flag)."""
_INTERFACE_NAME = re.compile(r'key:\s*\{\s*key:\s*"name"\s*value:\s*"((?:[^"\\]|\\.)*)"')


@cache
def version() -> str:
    """``gnmi_cli v0.14.1 (grpc-go v1.69.2, go1.26.8)`` from the build's module list."""
    try:
        return describe_version(BUILDINFO.read_text(encoding="utf-8"))
    except OSError:
        return "unknown"


def describe_version(buildinfo: str) -> str:
    """The gnmi module's version, the grpc-go it was built with and the Go release."""
    go = modules = None
    found: dict[str, str] = {}
    for line in buildinfo.splitlines():
        words = line.split()
        if not words:
            continue
        if go is None and len(words) == 2 and words[1].startswith("go1"):
            go = words[1]  # the first line: "<binary>: go1.26.8"
        if len(words) >= 3 and words[0] in ("mod", "dep"):
            found[words[1]] = words[2]
            modules = True
    gnmi = found.get("github.com/openconfig/gnmi")
    if not modules or gnmi is None:
        return "unknown"
    grpc = found.get("google.golang.org/grpc")
    built = [*([f"grpc-go {grpc}"] if grpc else []), *([go] if go else [])]
    return f"gnmi_cli {gnmi} ({', '.join(built)})"


def quoted(text: str) -> str:
    """A string in protobuf's text format."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def get_request(elements: Sequence[tuple[str, str | None]], encoding: str) -> str:
    """A GetRequest of CONFIG in protobuf's text format: the path's (name, interface key)
    elements."""
    elems = " ".join(
        f"elem: <name: {quoted(name)}"
        + (f" key: <key: {quoted('name')} value: {quoted(key)}>" if key is not None else "")
        + ">"
        for name, key in elements
    )
    return f"path: <{elems}> type: CONFIG encoding: {encoding}"


def config_request(interface: str) -> str:
    elements = [("interfaces", None), ("interface", interface), ("config", None)]
    return get_request(elements, "JSON_IETF")


def interface_names(response_text: str) -> list[str]:
    """The interfaces a GetResponse (as text) names, in order of first appearance."""
    names: list[str] = []
    for match in _INTERFACE_NAME.finditer(response_text):
        name = match.group(1).replace('\\"', '"').replace("\\\\", "\\")
        if name not in names:
            names.append(name)
    return names


def arguments(target: Target, request: str) -> list[str]:
    host = f"[{target.host}]" if ":" in target.host else target.host
    verify = [] if target.gnmi_tls_verify else ["-tls_skip_verify"]
    return [
        f"-address={host}:{target.gnmi_port}",
        "-get",
        f"-proto={request}",
        "-with_user_pass",
        *verify,
        f"-timeout={REQUEST_TIMEOUT_S:g}s",
        # glog writes its files under /tmp otherwise.
        "-logtostderr",
    ]


async def run_get(target: Target, request: str) -> str:
    """One gnmi_cli process; its GetResponse as text, IterationError when it fails."""
    env = {**os.environ, "GNMI_USER": target.username, "GNMI_PASS": target.password}
    process = await asyncio.create_subprocess_exec(
        GNMI_CLI,
        *arguments(target, request),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        stdout, stderr = await process.communicate()
    finally:
        if process.returncode is None:  # cancelled (the iteration timed out)
            process.kill()
            with contextlib.suppress(ProcessLookupError):
                await process.wait()
    output = stdout.decode("utf-8", errors="replace")
    if process.returncode != 0 or "notification" not in output:
        reason = first_line(output) or first_line(stderr.decode("utf-8", errors="replace"))
        raise IterationError(f"gnmi_cli exit status {process.returncode}: {reason}")
    return output


class _ProcessPerCommand:
    def __init__(self, target: Target, interfaces: list[str]) -> None:
        self._target = target
        self._interfaces = interfaces

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for index in range(len(commands)):
            interface = self._interfaces[index % len(self._interfaces)]
            outputs.append(await run_get(self._target, config_request(interface)))
        return outputs


@asynccontextmanager
async def process_per_command(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A gnmi_cli process per command; the interfaces discovered by one more before the
    warm-up."""
    listing = await run_get(target, get_request([("interfaces", None)], "PROTO"))
    interfaces = interface_names(listing)
    if not interfaces:
        raise IterationError("gnmi_cli: the device lists no interface under /interfaces")
    yield _ProcessPerCommand(target, interfaces)
