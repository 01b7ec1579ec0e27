"""The program's protocol: one job as JSON on standard input, one result as JSON on standard
output. Pure: parsed and checked here, run by nornir_job.py and ansible_job.py.

The job (every field is checked; an unknown one is refused, so a typo never passes silently):

``tool``
    ``"nornir"`` or ``"ansible"``.
``operation``
    ``"show"`` (send the ``commands``), ``"config"`` (apply ``config`` idempotently),
    ``"facts"`` (Ansible's ios_facts), ``"netconf_get"`` (a NETCONF ``<get>`` of the
    interfaces' state), ``"api_get"`` (Ansible's uri: ``GET /admin/exec/<command>`` on the
    device's HTTPS API, one request per command).
``connection``
    Nornir: ``"netmiko"``, ``"scrapli"`` (show, config) or ``"ncclient"`` (netconf_get).
    Ansible: ``"network_cli"`` (show, facts, config), ``"netconf"`` (netconf_get) or ``"uri"``
    (api_get).
``ssh_type``
    Ansible's network_cli only: ``"paramiko"`` or ``"libssh"``; null or absent: libssh,
    ansible.netcommon's default when ansible-pylibssh is installed.
``persistent``
    Ansible's network_cli only (default true): false resets the connection after every task
    (``meta: reset_connection``), so every task logs in anew.
``workers``
    At least 1: Nornir's ``num_workers``, Ansible's ``forks``.
``commands``
    The show commands (show, api_get: at least one).
``config``
    ``{"parents": [...], "lines": [...]}``: the lines (config: at least one) under their
    parents (e.g. ``["interface GigabitEthernet1"]``; empty: global configuration).
``hosts``
    At least one ``{name, host, platform, ssh_port, https_port, netconf_port}``; names unique.
``timeout_s``
    How long one device's operation may take (connect, command, reply); default 30.

Credentials are not in the job: DEVICE_USERNAME and DEVICE_PASSWORD in the environment.
"""

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

Tool = Literal["nornir", "ansible"]
SshType = Literal["paramiko", "libssh"]

CONNECTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "nornir": {
        "netmiko": ("show", "config"),
        "scrapli": ("show", "config"),
        "ncclient": ("netconf_get",),
    },
    "ansible": {
        "network_cli": ("show", "facts", "config"),
        "netconf": ("netconf_get",),
        "uri": ("api_get",),
    },
}
"""Each tool's connections and the operations each runs."""
PLATFORMS = ("cisco_iosxe", "arista_eos")
"""The lab's platforms (the emulator's names)."""
DEFAULT_TIMEOUT_S = 30.0
OUTPUT_LIMIT_BYTES = 64 * 1024
"""Each output in a result is cut to this many bytes of UTF-8."""
USERNAME_ENV = "DEVICE_USERNAME"
PASSWORD_ENV = "DEVICE_PASSWORD"

_JOB_FIELDS = frozenset(
    {
        "tool",
        "operation",
        "connection",
        "ssh_type",
        "persistent",
        "workers",
        "commands",
        "config",
        "hosts",
        "timeout_s",
    }
)
_HOST_FIELDS = ("name", "host", "platform", "ssh_port", "https_port", "netconf_port")


class JobError(ValueError):
    """A job the program cannot run; the message names the field and says why."""


@dataclass(frozen=True)
class Host:
    """One device, as the tools address it."""

    name: str
    host: str
    platform: str
    ssh_port: int
    https_port: int
    netconf_port: int


@dataclass(frozen=True)
class ConfigChange:
    parents: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Job:
    tool: Tool
    operation: str
    connection: str
    workers: int
    hosts: tuple[Host, ...]
    ssh_type: SshType | None = None
    """network_cli's SSH library (None for every other connection)."""
    persistent: bool = True
    commands: tuple[str, ...] = ()
    config: ConfigChange = field(default_factory=ConfigChange)
    timeout_s: float = DEFAULT_TIMEOUT_S


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)


@dataclass
class HostRecord:
    """What one device's part of the job did."""

    name: str
    ok: bool
    elapsed_s: float | None
    """The device's own time in the job: Nornir, its task's wall time in its worker thread;
    Ansible, the sum of its task durations (ansible-runner events' end - start)."""
    started_s: float | None
    """When its part started, in seconds from the job's start."""
    changed: bool | None
    """Whether the device's configuration changed (None: not known, e.g. it failed)."""
    outputs: list[str]
    """show/api_get: each command's output; config: the device's response; facts: the facts as
    JSON; netconf_get: the reply's XML. Each cut to OUTPUT_LIMIT_BYTES."""
    error: str | None


@dataclass(frozen=True)
class ClientUsage:
    cpu_s: float
    """User + system CPU of the program's process and its (reaped) children."""
    max_rss_bytes: int
    """The larger of the process's and its largest child's peak resident set."""


@dataclass(frozen=True)
class Result:
    tool: str
    versions: dict[str, str]
    wall_s: float
    """The job alone; the tool modules (nornir_job, ansible_job) say precisely what is timed."""
    hosts: list[HostRecord]
    client: ClientUsage

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# --- parsing ----------------------------------------------------------------------------------


def _string(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise JobError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _strings(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise JobError(f"{where}: expected a list of strings, got {type(value).__name__}")
    return tuple(_string(item, f"{where}[{index}]") for index, item in enumerate(value))


def _integer(value: object, where: str, low: int, high: int | None = None) -> int:
    # bool is an int to Python; a job saying `"workers": true` is a mistake.
    if not isinstance(value, int) or isinstance(value, bool):
        raise JobError(f"{where}: expected an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"{low}-{high}"
        raise JobError(f"{where}: expected {bounds}, got {value}")
    return value


def _choice(value: object, where: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise JobError(f"{where}: expected one of {', '.join(choices)}; got {value!r}")
    return value


def _host(value: object, index: int) -> Host:
    where = f"hosts[{index}]"
    if not isinstance(value, Mapping):
        raise JobError(f"{where}: expected an object, got {type(value).__name__}")
    missing = [name for name in _HOST_FIELDS if name not in value]
    if missing:
        raise JobError(f"{where}: missing {', '.join(missing)}")
    unknown = sorted(set(value) - set(_HOST_FIELDS))
    if unknown:
        raise JobError(f"{where}: unknown field(s) {', '.join(map(str, unknown))}")
    return Host(
        name=_string(value["name"], f"{where}.name"),
        host=_string(value["host"], f"{where}.host"),
        platform=_choice(value["platform"], f"{where}.platform", PLATFORMS),
        ssh_port=_integer(value["ssh_port"], f"{where}.ssh_port", 1, 65535),
        https_port=_integer(value["https_port"], f"{where}.https_port", 1, 65535),
        netconf_port=_integer(value["netconf_port"], f"{where}.netconf_port", 1, 65535),
    )


def _config(value: object) -> ConfigChange:
    if value is None:
        return ConfigChange()
    if not isinstance(value, Mapping):
        raise JobError(f"config: expected an object, got {type(value).__name__}")
    unknown = sorted(set(value) - {"parents", "lines"})
    if unknown:
        raise JobError(f"config: unknown field(s) {', '.join(map(str, unknown))}")
    return ConfigChange(
        parents=_strings(value.get("parents"), "config.parents"),
        lines=_strings(value.get("lines"), "config.lines"),
    )


def parse_job(document: object) -> Job:
    """The job in a decoded JSON document; JobError with the reason when it cannot run."""
    if not isinstance(document, Mapping):
        raise JobError(f"the job must be a JSON object, not {type(document).__name__}")
    unknown = sorted(set(document) - _JOB_FIELDS)
    if unknown:
        raise JobError(f"unknown field(s) {', '.join(map(str, unknown))}")
    for required in ("tool", "operation", "connection", "workers", "hosts"):
        if required not in document:
            raise JobError(f"{required}: missing")

    tool = cast(Tool, _choice(document["tool"], "tool", tuple(CONNECTIONS)))
    connection = _choice(document["connection"], "connection", tuple(CONNECTIONS[tool]))
    operation = _choice(document["operation"], "operation", CONNECTIONS[tool][connection])
    network_cli = tool == "ansible" and connection == "network_cli"

    ssh_type_value = document.get("ssh_type")
    ssh_type: SshType | None = None
    if ssh_type_value is not None:
        if not network_cli:
            raise JobError("ssh_type: applies to Ansible's network_cli only")
        ssh_type = cast(SshType, _choice(ssh_type_value, "ssh_type", ("paramiko", "libssh")))
    elif network_cli:
        ssh_type = "libssh"

    persistent = document.get("persistent", True)
    if not isinstance(persistent, bool):
        raise JobError(f"persistent: expected true or false, got {persistent!r}")
    if not persistent and not network_cli:
        raise JobError("persistent: false applies to Ansible's network_cli only")

    workers = _integer(document["workers"], "workers", 1)
    commands = _strings(document.get("commands"), "commands")
    if operation in ("show", "api_get") and not commands:
        raise JobError(f"commands: a {operation} job needs at least one command")
    config = _config(document.get("config"))
    if operation == "config" and not config.lines:
        raise JobError("config.lines: a config job needs at least one line")

    hosts_value = document["hosts"]
    if not isinstance(hosts_value, list) or not hosts_value:
        raise JobError("hosts: expected a non-empty list of devices")
    hosts = tuple(_host(item, index) for index, item in enumerate(hosts_value))
    names = [host.name for host in hosts]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise JobError(f"hosts: duplicate name(s) {', '.join(duplicates)}")

    timeout_value = document.get("timeout_s", DEFAULT_TIMEOUT_S)
    if (
        not isinstance(timeout_value, int | float)
        or isinstance(timeout_value, bool)
        or not math.isfinite(timeout_value)
        or timeout_value <= 0
    ):
        raise JobError(f"timeout_s: expected a positive number of seconds, got {timeout_value!r}")

    return Job(
        tool=tool,
        operation=operation,
        connection=connection,
        workers=workers,
        hosts=hosts,
        ssh_type=ssh_type,
        persistent=persistent,
        commands=commands,
        config=config,
        timeout_s=float(timeout_value),
    )


def credentials_from(environment: Mapping[str, str]) -> Credentials:
    """The device account from DEVICE_USERNAME and DEVICE_PASSWORD; JobError without them."""
    missing = [name for name in (USERNAME_ENV, PASSWORD_ENV) if not environment.get(name)]
    if missing:
        raise JobError(f"the device's credentials: {', '.join(missing)} not set")
    return Credentials(username=environment[USERNAME_ENV], password=environment[PASSWORD_ENV])


def bounded(text: str, limit: int = OUTPUT_LIMIT_BYTES) -> str:
    """``text`` cut to ``limit`` bytes of UTF-8, saying how much was left out."""
    encoded = text.encode("utf-8", errors="replace")
    if len(encoded) <= limit:
        return text
    marker = f"\n[... {len(encoded)} bytes, cut to {limit}]"
    kept = encoded[: limit - len(marker.encode())]
    return kept.decode("utf-8", errors="ignore") + marker
