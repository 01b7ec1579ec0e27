"""The gNMI client (gnmi.py) and its users against a gNMI server in a process of its own
(gnmi_server.py: plain grpcio on threads), the users on gevent's loop as in a Locust
process, grpcio in its gevent mode."""

import datetime
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gevent
import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from locust.env import Environment
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from transport_load import gnmi, lab
from transport_load.inventory import Device, Inventory
from transport_load.transports import GNMI_GET_PATH, GNMI_STREAM_PATH
from transport_load.users import GnmiFreshUser, GnmiGetUser, GnmiStreamUser

SERVER = Path(__file__).with_name("gnmi_server.py")
WAIT_S = 30.0
"""The longest a test waits for what a working client does in well under a second."""


def certificate(names: list[str]) -> tuple[bytes, bytes]:
    """A self-signed certificate (CN device, the DNS ``names`` as subjectAltNames) and key."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "device")])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    )
    if names:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(name) for name in names]), critical=False
        )
    pem = builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem, key_pem


ServerFor = Callable[..., int]


@pytest.fixture
def server_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerFor]:
    """Starts gnmi_server.py with the given options; its port. Each server has its own
    certificate: the process's cache of trusted devices starts empty for each test."""
    monkeypatch.setattr(gnmi, "_TRUSTED", {})
    processes: list[subprocess.Popen[str]] = []

    def start(*options: str) -> int:
        pem, key = certificate(["lab-device.example", "device"])
        (tmp_path / "cert.pem").write_bytes(pem)
        (tmp_path / "key.pem").write_bytes(key)
        process = subprocess.Popen(
            [sys.executable, str(SERVER), "cert.pem", "key.pem", *options],
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        processes.append(process)
        assert process.stdout is not None
        return int(process.stdout.readline())

    yield start
    for process in processes:
        process.kill()
        process.wait()


@pytest.fixture
def aim_lab_at(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    monkeypatch.setenv("DEVICE_USERNAME", "admin")
    monkeypatch.setenv("DEVICE_PASSWORD", "lab-secret")

    def aim(port: int) -> None:
        device = Device("lab-r1", "127.0.0.1", gnmi_port=port)
        monkeypatch.setattr(lab.STATE, "inventory", Inventory(lab=True, devices=(device,)))

    return aim


def counters(port: int) -> dict[str, Any]:
    """The test server's own counters (its Capabilities answer), over a channel of its own:
    its connection is one of the peers."""
    tls = gnmi.tls_for("127.0.0.1", port, host="device", verify=False)
    with gnmi.GnmiClient("127.0.0.1", port, tls, "admin", "lab-secret") as client:
        stub = gnmi_pb2_grpc.gNMIStub(client.channel)
        answer = stub.Capabilities(
            gnmi_pb2.CapabilityRequest(),
            metadata=(("username", "admin"), ("password", "lab-secret")),
            timeout=WAIT_S,
        )
    found: dict[str, Any] = json.loads(answer.gNMI_version)
    return found


def _requests(environment: Environment) -> list[dict[str, Any]]:
    fired: list[dict[str, Any]] = []
    environment.events.request.add_listener(lambda **event: fired.append(event))
    return fired


def _until(done: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while not done() and time.monotonic() < deadline:
        gevent.sleep(0.05)
    return done()


def test_paths_keep_slashes_and_escaped_brackets_inside_keys() -> None:
    assert gnmi.parse_path("/interfaces/interface[name=GigabitEthernet0/0/1]/config") == [
        ("interfaces", {}),
        ("interface", {"name": "GigabitEthernet0/0/1"}),
        ("config", {}),
    ]
    assert gnmi.parse_path("/a[k=x\\]y][j=2]/b/") == [("a", {"k": "x]y", "j": "2"}), ("b", {})]
    assert gnmi.parse_path("/") == []
    for bad in ("a/b", "//a", "/a//b", "/a[k]", "/a[k=1", "/[k=1]", "/a[k=1]b"):
        with pytest.raises(ValueError, match="gNMI path"):
            gnmi.parse_path(bad)


def test_requests_carry_the_path_data_type_and_sample_interval() -> None:
    get = gnmi.get_request([GNMI_GET_PATH])
    assert get.type == gnmi_pb2.GetRequest.CONFIG
    assert get.encoding == gnmi_pb2.JSON_IETF
    [path] = get.path
    assert [elem.name for elem in path.elem] == ["interfaces", "interface", "config"]
    assert dict(path.elem[1].key) == {"name": "GigabitEthernet1"}
    subscribe = gnmi.sample_request(GNMI_STREAM_PATH, 2.5).subscribe
    assert subscribe.mode == gnmi_pb2.SubscriptionList.STREAM
    [subscription] = subscribe.subscription
    assert subscription.mode == gnmi_pb2.SAMPLE
    assert subscription.sample_interval == 2_500_000
    assert subscription.path.elem[-1].name == "in-octets"


def test_the_certificates_name_is_its_first_dns_name_else_its_common_name() -> None:
    assert gnmi.certificate_name(certificate(["r1.lab", "device"])[0]) == "r1.lab"
    assert gnmi.certificate_name(certificate([])[0]) == "device"


def test_a_kept_channel_serves_every_get_and_a_fresh_one_each(
    server_for: ServerFor, aim_lab_at: Callable[[int], None]
) -> None:
    port = server_for()
    aim_lab_at(port)
    environment = Environment(user_classes=[GnmiGetUser, GnmiFreshUser])
    fired = _requests(environment)
    kept = GnmiGetUser(environment)
    for _ in range(3):
        kept.operation()
    kept.on_stop()
    assert len(counters(port)["peers"]) == 1 + 1  # the kept channel's, this query's
    fresh = GnmiFreshUser(environment)
    for _ in range(3):
        fresh.operation()
    assert len(counters(port)["peers"]) == 1 + 1 + 3 + 1
    assert [event["exception"] for event in fired] == [None] * 6
    assert [event["name"] for event in fired] == ["gnmi/reuse-conn"] * 3 + ["gnmi/fresh-conn"] * 3
    for event in fired:
        assert event["response_length"] > 0
        assert event["context"]["client"].startswith("grpcio ")
        assert event["context"]["client"] != "grpcio unknown"


def test_gets_of_several_users_are_in_flight_at_once(
    server_for: ServerFor, aim_lab_at: Callable[[int], None]
) -> None:
    """The server answers no Get until three are waiting: every user gets its answer only if
    a user waiting for its answer lets the others connect and send theirs, that is if
    grpcio waits on gevent's loop. A blocked hub would leave the first Get alone at the
    server, which fails it after its hold."""
    port = server_for("--hold-for", "3")
    aim_lab_at(port)
    environment = Environment(user_classes=[GnmiGetUser, GnmiFreshUser])
    fired = _requests(environment)
    users = [GnmiGetUser(environment), GnmiGetUser(environment), GnmiFreshUser(environment)]
    gevent.joinall([gevent.spawn(user.operation) for user in users], raise_error=True)
    for user in users:
        user.on_stop()
    assert [event["exception"] for event in fired] == [None] * 3
    assert counters(port)["most_in_flight"] == 3


@pytest.mark.parametrize("user_class", [GnmiGetUser, GnmiFreshUser, GnmiStreamUser])
def test_a_wrong_password_fails_every_operation(
    server_for: ServerFor,
    aim_lab_at: Callable[[int], None],
    monkeypatch: pytest.MonkeyPatch,
    user_class: type[GnmiGetUser | GnmiFreshUser | GnmiStreamUser],
) -> None:
    port = server_for()
    aim_lab_at(port)
    monkeypatch.setenv("DEVICE_PASSWORD", "wrong")
    environment = Environment(user_classes=[user_class])
    fired = _requests(environment)
    user = user_class(environment)
    if isinstance(user, GnmiStreamUser):
        user.hold()
    else:
        user.operation()
    assert _until(lambda: len(fired) == 1)
    user.on_stop()
    [event] = fired
    assert isinstance(event["exception"], grpc.RpcError)
    assert event["exception"].code() == grpc.StatusCode.UNAUTHENTICATED
    assert event["request_type"] == user_class.transport.key


def test_many_streams_are_held_at_once_and_every_update_reports_its_lag(
    server_for: ServerFor, aim_lab_at: Callable[[int], None]
) -> None:
    """Twenty users of one process each hold a subscription at the run's interval: every
    one receives updates, each update is one request event whose response time is its lag
    (never negative on one host clock), the initial state is not measured (its timestamp is
    1 ns after the epoch: a lag of decades), and stopping a user ends its subscription."""
    port = server_for()
    aim_lab_at(port)
    environment = Environment(
        user_classes=[GnmiStreamUser], parsed_options=SimpleNamespace(lab_gnmi_interval_ms=20.0)
    )
    fired = _requests(environment)
    users = [GnmiStreamUser(environment) for _ in range(20)]
    for user in users:
        user.hold()
    assert _until(lambda: all(user.updates >= 3 for user in users)), [u.updates for u in users]
    held = counters(port)
    for user in users:
        user.on_stop()
    assert held["intervals"] == [20_000_000] * 20
    assert held["most_active"] == 20
    assert _until(lambda: counters(port)["active"] == 0)
    assert len(fired) >= 60
    assert all(event["exception"] is None for event in fired), fired[:3]
    for event in fired:
        assert (event["request_type"], event["name"]) == ("gnmi-stream", "gnmi/stream")
        assert 0 <= event["response_time"] < 60_000
        assert event["response_length"] > 0
    assert sum(user.updates for user in users) == len(fired)


def test_a_stream_the_device_ends_is_a_failure_and_the_user_subscribes_again(
    server_for: ServerFor, aim_lab_at: Callable[[int], None]
) -> None:
    port = server_for("--end-after", "2")
    aim_lab_at(port)
    environment = Environment(user_classes=[GnmiStreamUser])
    fired = _requests(environment)
    user = GnmiStreamUser(environment)
    user.hold()
    assert _until(lambda: len(fired) == 3)
    user.hold()  # the task's next turn
    assert _until(lambda: len(fired) == 6)
    user.on_stop()
    outcomes = [str(event["exception"] or "") for event in fired]
    assert outcomes[0:2] == outcomes[3:5] == ["", ""]
    assert "ended the subscription" in outcomes[2]
    assert "ended the subscription" in outcomes[5]
    assert counters(port)["intervals"] == [100_000_000] * 2  # the default interval
