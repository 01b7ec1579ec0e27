"""NETCONF for Nornir on ncclient: a connection plugin and a ``<get>`` task.

Not nornir-netconf: its newest release (2.1.0) requires ncclient <0.7, below the runner's
0.7.1. This is the small equivalent: the connection (``ncclient``) is opened by the first task
that asks for it and kept for the host's later tasks, as Nornir's own plugins are.
"""

from typing import Any

from ncclient import manager
from nornir.core.configuration import Config
from nornir.core.plugins.connections import ConnectionPluginRegister
from nornir.core.task import Result, Task

CONNECTION_NAME = "ncclient"
INTERFACES_STATE_FILTER = '<interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"/>'
"""The subtree both tools' netconf_get asks for (Ansible's playbook uses the same)."""


class NcclientConnection:
    """An ncclient Manager over SSH to the host's NETCONF port (netconf subsystem)."""

    def __init__(self) -> None:
        self._connection: Any = None

    @property
    def connection(self) -> Any:
        return self._connection

    def open(
        self,
        hostname: str | None,
        username: str | None,
        password: str | None,
        port: int | None,
        platform: str | None,
        extras: dict[str, Any] | None = None,
        configuration: Config | None = None,
    ) -> None:
        parameters: dict[str, Any] = {
            "host": hostname,
            "port": port or 830,
            "username": username,
            "password": password,
            # The job gives a password only: no host key check (lab keys are per container),
            # no agent, no ~/.ssh keys.
            "hostkey_verify": False,
            "allow_agent": False,
            "look_for_keys": False,
            # Plain RFC 6241: ncclient's vendor handlers add nothing the device speaks.
            "device_params": {"name": "default"},
        }
        parameters.update(extras or {})
        self._connection = manager.connect(**parameters)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close_session()


def register() -> None:
    """Make the plugin known to Nornir (once per process)."""
    if CONNECTION_NAME not in ConnectionPluginRegister.available:
        ConnectionPluginRegister.register(CONNECTION_NAME, NcclientConnection)


def netconf_get(task: Task, subtree: str = INTERFACES_STATE_FILTER) -> Result:
    """A ``<get>`` with a subtree filter; the reply's ``<data>`` XML as the result. An
    ``<rpc-error>`` raises (ncclient's RPCError)."""
    manager_ = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    reply = manager_.get(filter=("subtree", subtree))
    return Result(host=task.host, result=str(reply.data_xml), changed=False)
