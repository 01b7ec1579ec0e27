"""The HTTP/3 client (http3.py) and its users against an in-process aioquic server
(h3_server.py), all on gevent's loop as in a Locust process."""

import base64
import socket
from collections.abc import Iterator
from typing import Any

import gevent
import pytest
from aioquic.tls import SessionTicket
from h3_server import Http3TestServer, Responder
from locust.env import Environment

from transport_load import http3, lab
from transport_load.inventory import Device, Inventory
from transport_load.users import H3FreshUser, H3KeepAliveUser, H3ResumedUser

SHOW_VERSION = b"Cisco IOS XE Software, Version 17.9.4a\n"


def _device_answer(path: str, headers: dict[str, str]) -> tuple[int, bytes]:
    return (200, SHOW_VERSION) if path == "/admin/exec/show+version" else (404, b"")


@pytest.fixture
def server_for() -> Iterator[Any]:
    servers: list[Http3TestServer] = []

    def start(respond: Responder = _device_answer, hold_for: int = 1) -> Http3TestServer:
        servers.append(Http3TestServer(respond, hold_for=hold_for))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def test_requests_share_a_connection_and_a_ticket_resumes_the_session(server_for: Any) -> None:
    server = server_for()
    tickets: list[SessionTicket] = []
    with http3.connect(
        "127.0.0.1", server.port, server_name="device", ticket_handler=tickets.append
    ) as connection:
        assert connection.handshake_completed is not None
        assert connection.handshake_completed.alpn_protocol == "h3"
        assert not connection.handshake_completed.session_resumed
        first = connection.get("/admin/exec/show+version", [("Authorization", "Basic dTpw")])
        second = connection.get("/nothing")
    assert (first.status, first.body) == (200, SHOW_VERSION)
    assert second.status == 404
    (address, path, headers), (again, _, _) = server.requests
    assert address == again  # one UDP socket, one connection: both requests on it
    assert (path, headers[":authority"]) == ("/admin/exec/show+version", f"device:{server.port}")
    assert headers["authorization"] == "Basic dTpw"
    assert tickets, "the server issued no session ticket"

    with http3.connect(
        "127.0.0.1", server.port, server_name="device", session_ticket=tickets[-1]
    ) as resumed:
        assert resumed.handshake_completed is not None
        assert resumed.handshake_completed.session_resumed
        assert resumed.get("/admin/exec/show+version").body == SHOW_VERSION
    assert [h.session_resumed for h in server.handshakes] == [False, True]


def test_nothing_listening_fails_the_handshake() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    # on loopback the kernel always answers ICMP port unreachable (no rate limit there)
    with pytest.raises(http3.Http3Error, match=f"127.0.0.1 refused UDP {port}"):
        http3.connect("127.0.0.1", port, server_name="device")


def test_silence_times_the_handshake_and_the_request_out(server_for: Any) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as silent:
        silent.bind(("127.0.0.1", 0))
        with pytest.raises(TimeoutError, match="QUIC handshake"):
            http3.connect("127.0.0.1", silent.getsockname()[1], server_name="d", timeout=0.5)
    # a server that answers only two requests at once never answers one
    server = server_for(hold_for=2)
    with (
        http3.connect("127.0.0.1", server.port, server_name="device", timeout=0.5) as connection,
        pytest.raises(TimeoutError, match="GET /admin/exec/show"),
    ):
        connection.get("/admin/exec/show+version")


def test_a_closed_connection_refuses_requests(server_for: Any) -> None:
    server = server_for()
    connection = http3.connect("127.0.0.1", server.port, server_name="device")
    connection.close()
    connection.close()
    assert connection.terminated
    with pytest.raises(http3.Http3Error, match="closed"):
        connection.get("/admin/exec/show+version")


@pytest.fixture
def aim_lab_at(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The lab's state aimed at a test server's port, with the lab's credentials."""
    monkeypatch.setenv("DEVICE_USERNAME", "admin")
    monkeypatch.setenv("DEVICE_PASSWORD", "lab-secret")
    monkeypatch.setattr(lab.STATE, "command", "show version")

    def aim(port: int) -> None:
        device = Device("lab-r1", "127.0.0.1", h3_port=port)
        monkeypatch.setattr(lab.STATE, "inventory", Inventory(lab=True, devices=(device,)))

    return aim


def _requests(environment: Environment) -> list[dict[str, Any]]:
    fired: list[dict[str, Any]] = []
    environment.events.request.add_listener(lambda **event: fired.append(event))
    return fired


def test_two_users_connections_progress_concurrently(server_for: Any, aim_lab_at: Any) -> None:
    """The server answers no request until two are waiting, each on its own connection: both
    users get their answer only if each one's handshake and request went out while the other
    was waiting for its answer, that is if a user waiting on its UDP socket lets the other
    run. A user blocking the process would time out, a failure of its request."""
    server = server_for(hold_for=2)
    aim_lab_at(server.port)
    environment = Environment(user_classes=[H3KeepAliveUser, H3FreshUser])
    fired = _requests(environment)
    users = [H3KeepAliveUser(environment), H3FreshUser(environment)]
    gevent.joinall([gevent.spawn(user.operation) for user in users], raise_error=True)

    assert sorted(event["request_type"] for event in fired) == ["h3-fresh", "h3-keepalive"]
    for event in fired:
        assert event["exception"] is None, event
        assert event["response_length"] == len(SHOW_VERSION)
        assert event["name"] in ("h3/keep-alive", "h3/fresh-conn")
        assert event["context"]["client"].startswith("aioquic ")
        assert event["context"]["client"] != "aioquic unknown"
    assert len({address for address, _, _ in server.requests}) == 2
    credentials = base64.b64encode(b"admin:lab-secret").decode()
    assert {headers["authorization"] for _, _, headers in server.requests} == {
        f"Basic {credentials}"
    }
    users[0].on_stop()


def test_the_kept_connection_serves_every_operation(server_for: Any, aim_lab_at: Any) -> None:
    server = server_for()
    aim_lab_at(server.port)
    environment = Environment(user_classes=[H3KeepAliveUser])
    fired = _requests(environment)
    user = H3KeepAliveUser(environment)
    for _ in range(3):
        user.operation()
    user.on_stop()
    assert [event["exception"] for event in fired] == [None] * 3
    assert len({address for address, _, _ in server.requests}) == 1
    assert len(server.handshakes) == 1


def test_the_resumed_user_resumes_every_measured_connection(
    server_for: Any, aim_lab_at: Any
) -> None:
    """The first ticket comes from an unmeasured connection; every operation then opens a new
    connection that resumes the newest session, with no early data."""
    server = server_for()
    aim_lab_at(server.port)
    environment = Environment(user_classes=[H3ResumedUser])
    fired = _requests(environment)
    user = H3ResumedUser(environment)
    for _ in range(3):
        user.operation()
    assert [event["exception"] for event in fired] == [None] * 3
    assert [event["request_type"] for event in fired] == ["h3-resumed"] * 3
    assert len({address for address, _, _ in server.requests}) == 4
    assert len(server.handshakes) == 4


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ((500, b"internal error"), "HTTP 500"),
        ((200, b"% Invalid input detected\n"), "Invalid input"),
        ((200, b""), "empty output"),
    ],
)
@pytest.mark.parametrize("user_class", [H3KeepAliveUser, H3FreshUser, H3ResumedUser])
def test_a_wrong_answer_is_a_failure_of_that_request(
    server_for: Any,
    aim_lab_at: Any,
    user_class: type[H3KeepAliveUser | H3FreshUser | H3ResumedUser],
    answer: tuple[int, bytes],
    problem: str,
) -> None:
    server = server_for(lambda path, headers: answer)
    aim_lab_at(server.port)
    environment = Environment(user_classes=[user_class])
    fired = _requests(environment)
    user = user_class(environment)
    user.operation()
    user.on_stop()
    [event] = fired
    assert problem in str(event["exception"])
    assert event["request_type"] == user_class.transport.key


@pytest.mark.parametrize("user_class", [H3KeepAliveUser, H3FreshUser, H3ResumedUser])
def test_a_device_without_http3_fails_each_operation(
    aim_lab_at: Any, user_class: type[H3KeepAliveUser | H3FreshUser | H3ResumedUser]
) -> None:
    """Nothing on the UDP port: every operation is a failure event, the user goes on."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    aim_lab_at(port)
    environment = Environment(user_classes=[user_class])
    fired = _requests(environment)
    user = user_class(environment)
    user.operation()
    user.operation()
    assert len(fired) == 2
    assert all(isinstance(event["exception"], http3.Http3Error) for event in fired), fired
