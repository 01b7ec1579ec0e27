"""The socket the runner gives scrapli's paramiko and ssh2 transports closes paramiko's
Transport before itself (modes/clients/scrapli_ssh.py)."""

import socket
from collections.abc import Iterator
from types import SimpleNamespace
from unittest.mock import Mock

import paramiko
import pytest

from bench_runner.modes.clients.scrapli_ssh import _TransportFirstSocket


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = socket.socketpair()
    yield ours, theirs
    ours.close()
    theirs.close()


def test_paramikos_transport_is_closed_while_the_socket_is_open(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, _ = pair
    open_at_close: list[bool] = []
    session = Mock(spec=paramiko.Transport)
    session.close.side_effect = lambda: open_at_close.append(ours.fileno() != -1)
    sock = _TransportFirstSocket(SimpleNamespace(session=session), "device", 22, 5.0)
    sock.sock = ours
    sock.close()
    assert open_at_close == [True]
    assert ours.fileno() == -1


def test_another_library_session_is_left_to_its_transport(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    ours, _ = pair
    session = Mock()  # ssh2-python's Session: scrapli's ssh2 transport disconnects it
    sock = _TransportFirstSocket(SimpleNamespace(session=session), "device", 22, 5.0)
    sock.sock = ours
    sock.close()
    session.close.assert_not_called()
    assert ours.fileno() == -1
