"""A fleet job step: which tool does what over which connection, on how many devices with how
many workers. Pure: validated here, run by run.py."""

from dataclasses import dataclass
from typing import Literal

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
"""Each tool's connections (its plugins) and the operations each can run."""
TRANSPORTS = {
    "netmiko": "ssh",
    "scrapli": "ssh",
    "network_cli": "ssh",
    "ncclient": "netconf",
    "netconf": "netconf",
    "uri": "https",
}
"""The management transport under each connection: what the job's time is the cost of."""
TOOL_DISTRIBUTIONS = {"nornir": "nornir", "ansible": "ansible-core"}
"""The distribution whose version is a step's tool version (``client_version``)."""
DEFAULT_COMMANDS = ("show version",)
DEFAULT_CONFIG_PARENTS = ("interface GigabitEthernet1",)
DEFAULT_CONFIG_LINES = ("description managed by a fleet job",)


class FleetJobError(ValueError):
    """A step that cannot be run as asked; the message says why."""


@dataclass(frozen=True)
class FleetJob:
    tool: Tool
    connection: str
    operation: str
    devices: int
    workers: int
    ssh_type: SshType | None = None
    """Ansible's network_cli only: paramiko or libssh (ansible-pylibssh)."""
    persistent: bool = True
    """Ansible's network_cli only: False resets the connection after every task."""
    commands: tuple[str, ...] = DEFAULT_COMMANDS
    config_parents: tuple[str, ...] = DEFAULT_CONFIG_PARENTS
    config_lines: tuple[str, ...] = DEFAULT_CONFIG_LINES

    def __post_init__(self) -> None:
        connections = CONNECTIONS.get(self.tool)
        if connections is None:
            raise FleetJobError(f"unknown tool {self.tool!r}; one of {', '.join(CONNECTIONS)}")
        operations = connections.get(self.connection)
        if operations is None:
            known = ", ".join(connections)
            raise FleetJobError(
                f"{self.tool} has no connection {self.connection!r}; one of {known}"
            )
        if self.operation not in operations:
            raise FleetJobError(
                f"{self.tool} over {self.connection} runs {', '.join(operations)}, "
                f"not {self.operation!r}"
            )
        if self.devices < 1 or self.workers < 1:
            raise FleetJobError("devices and workers must be at least 1")
        network_cli = self.tool == "ansible" and self.connection == "network_cli"
        if self.ssh_type is not None and not network_cli:
            raise FleetJobError("--ssh-type applies to Ansible's network_cli only")
        if not self.persistent and not network_cli:
            raise FleetJobError("--no-persistent applies to Ansible's network_cli only")
        if self.operation == "show" and not self.commands:
            raise FleetJobError("a show job needs at least one command")
        if self.operation == "config" and not self.config_lines:
            raise FleetJobError("a config job needs at least one line")

    @property
    def transport(self) -> str:
        return TRANSPORTS[self.connection]

    @property
    def effective_ssh_type(self) -> SshType | None:
        """network_cli's SSH library: ansible.netcommon's default is libssh when installed."""
        if self.tool == "ansible" and self.connection == "network_cli":
            return self.ssh_type or "libssh"
        return None

    @property
    def label(self) -> str:
        """``tool/connection/operation`` and what else sets the step apart: the series."""
        parts = [f"{self.tool}/{self.connection}/{self.operation}"]
        if self.effective_ssh_type:
            parts.append(self.effective_ssh_type)
        if not self.persistent:
            parts.append("reset")
        return " · ".join(parts)
