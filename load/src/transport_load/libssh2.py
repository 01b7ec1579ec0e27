"""parallel-ssh's native client (``pssh.clients.native``: libssh2 through ssh2-python) for
load, beside paramiko (ssh.py), to rerun parallel-ssh's "paramiko vs libssh2" comparison
under gevent. The client is gevent-native (non-blocking libssh2 on gevent's sockets, password
auth in gevent's thread pool), so it shares Locust's loop without monkey-patching. TCP_NODELAY
is set once the socket is connected, before the handshake: without it a reused session waits
~40 ms per command on delayed ACKs. Host keys, keys, agent and identity files are off (the
lab's own devices, password auth).
"""

import socket
from typing import Any

from pssh.clients.native import SSHClient  # type: ignore[import-untyped]

from transport_load.ssh import CONNECT_TIMEOUT_S, OperationError, check_cli_output


class _NoDelayClient(SSHClient):  # type: ignore[misc]
    def _connect_socket(self, *args: Any) -> Any:
        result = super()._connect_socket(*args)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return result


def connect(host: str, port: int, username: str, password: str) -> Any:
    """TCP, key exchange and password auth: pssh connects in its constructor."""
    return _NoDelayClient(
        host,
        user=username,
        password=password,
        port=port,
        num_retries=1,
        allow_agent=False,
        identity_auth=False,
        timeout=CONNECT_TIMEOUT_S,
    )


def exec_command(client: Any, command: str) -> str:
    """One exec channel: ``run_command``, the output read to its end, ``wait_finished``
    (EOF, channel closed) and exit status 0."""
    output = client.run_command(command, timeout=CONNECT_TIMEOUT_S)
    text = "\n".join(output.stdout)
    client.wait_finished(output, timeout=CONNECT_TIMEOUT_S)
    if output.exit_code != 0:
        raise OperationError(f"{command}: exit status {output.exit_code}")
    return check_cli_output(command, text)


def close(client: Any) -> None:
    """The session and socket, as pssh's own ``__del__`` does."""
    client._disconnect()
