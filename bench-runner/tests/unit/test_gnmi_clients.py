"""The gNMI modes' reads and writes as the Python clients build them (modes/clients/
gnmi_paths.py), gnmi_cli's requests and version, pygnmi's stream updates, and which client does
which gNMI mode."""

import threading

import grpc  # type: ignore[import-untyped]
import pytest

from bench_runner.modes.catalog import CLIENT_SCOPE, ROWS
from bench_runner.modes.clients.gnmi_cli import (
    config_request,
    describe_version,
    get_request,
    interface_names,
)
from bench_runner.modes.clients.gnmi_paths import (
    Interface,
    config_path,
    description,
    description_path,
    interfaces_from_leaves,
    notification_leaves,
    pick,
)

GNMI_MODES = {
    "gnmi/fresh-conn",
    "gnmi/reuse-conn",
    "gnmi/get-multi",
    "gnmi/set-batch",
    "gnmi/subscribe-once",
    "gnmi/subscribe-poll",
    "gnmi/stream",
}


def test_command_i_reads_interface_i_mod_k() -> None:
    interfaces = [Interface("Loopback0"), Interface("GigabitEthernet1")]
    assert [pick(interfaces, i).name for i in range(3)] == [
        "Loopback0",
        "GigabitEthernet1",
        "Loopback0",
    ]
    assert config_path("Gi1") == "/interfaces/interface[name=Gi1]/config"
    assert description_path("Gi1") == "/interfaces/interface[name=Gi1]/config/description"


def test_writes_are_unique_per_iteration_and_command() -> None:
    values = {description("ab12", it, i) for it in range(1, 11) for i in range(11)}
    assert len(values) == 110
    assert description("ab12", 3, 0) == "bench ab12 3.1"


def test_interfaces_keep_the_devices_order_and_descriptions() -> None:
    response = {
        "notification": [
            {
                "prefix": "interfaces",
                "update": [
                    {"path": "interface[name=Loopback0]/config/name", "val": "Loopback0"},
                    {"path": "interface[name=Gi1]/config/name", "val": "Gi1"},
                ],
            },
            {
                "prefix": None,
                "update": [
                    {"path": "interfaces/interface[name=Gi1]/config/description", "val": "up"},
                    {"path": "interfaces/interface[name=Loopback0]/state/mtu", "val": 1514},
                ],
            },
        ]
    }
    assert interfaces_from_leaves(notification_leaves(response)) == [
        Interface("Loopback0"),
        Interface("Gi1", "up"),
    ]
    with pytest.raises(ValueError, match="no interface"):
        interfaces_from_leaves([("system/config/hostname", "r1")])


def test_gnmi_cli_request_text_and_the_names_in_its_answer() -> None:
    assert config_request('Gi"1') == (
        'path: <elem: <name: "interfaces"> elem: <name: "interface" key: <key: "name" '
        'value: "Gi\\"1">> elem: <name: "config">> type: CONFIG encoding: JSON_IETF'
    )
    assert get_request([("interfaces", None)], "PROTO") == (
        'path: <elem: <name: "interfaces">> type: CONFIG encoding: PROTO'
    )
    answer = """notification: {
  update: {
    path: {
      elem: {
        name: "interfaces"
      }
      elem: {
        name: "interface"
        key: {
          key: "name"
          value: "Loopback0"
        }
      }
    }
  }
  update: {
    path: {
      elem: {
        name: "interface"
        key: {
          key: "name"
          value: "GigabitEthernet1"
        }
      }
    }
  }
  update: {
    path: { elem: { name: "interface" key: { key: "name" value: "Loopback0" } } }
  }
}"""
    assert interface_names(answer) == ["Loopback0", "GigabitEthernet1"]


def test_gnmi_cli_version_from_its_build() -> None:
    buildinfo = """/out/gnmi_cli: go1.26.8
\tpath\tgithub.com/openconfig/gnmi/cmd/gnmi_cli
\tmod\tgithub.com/openconfig/gnmi\tv0.14.1\th1:abc=
\tdep\tgoogle.golang.org/grpc\tv1.69.2\th1:def=
\tbuild\tCGO_ENABLED=0
"""
    assert describe_version(buildinfo) == "gnmi_cli v0.14.1 (grpc-go v1.69.2, go1.26.8)"
    assert describe_version("") == "unknown"


def test_every_gnmi_mode_has_the_floor_and_pygnmi_gnmi_cli_only_fresh_conn() -> None:
    clients: dict[str, set[str]] = {}
    for row in ROWS:
        if row.name in GNMI_MODES:
            clients.setdefault(row.client, set()).add(row.name)
    assert clients == {
        "grpc-go": GNMI_MODES,
        "pygnmi": GNMI_MODES,
        "gnmi_cli": {"gnmi/fresh-conn"},
    }
    assert "keep a channel" in CLIENT_SCOPE["gnmi_cli"]


def test_pygnmi_stream_finds_the_interfaces_description_update() -> None:
    from bench_runner.modes.clients.pygnmi_gnmi import update_for

    message = {
        "update": {
            "timestamp": 1_800_000_000_000_000_000,
            "prefix": "interfaces/interface[name=Gi1]",
            "update": [{"path": "config/description", "val": "bench ab stream 2"}],
        }
    }
    assert update_for(message, "Gi1") == ("bench ab stream 2", 1_800_000_000_000_000_000)
    assert update_for(message, "Loopback0") is None
    assert update_for({"sync_response": True}, "Gi1") is None


class _Rpc(grpc.RpcError):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__()
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code


def _raise_in_thread(name: str, error: BaseException) -> None:
    def fail() -> None:
        raise error

    thread = threading.Thread(target=fail, name=name)
    thread.start()
    thread.join()


def test_only_a_cancelled_pygnmi_subscription_thread_is_silenced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pygnmi's reader thread re-raises CANCELLED when its channel closes under a live POLL
    or STREAM subscription; that ending is not printed, any other thread failure is."""
    from bench_runner.modes.clients import pygnmi_gnmi

    reported: list[str] = []

    def report(args: threading.ExceptHookArgs) -> None:
        reported.append(args.thread.name if args.thread is not None else "")

    monkeypatch.setattr(pygnmi_gnmi, "_thread_excepthook", report)
    monkeypatch.setattr(threading, "excepthook", pygnmi_gnmi._subscription_cancelled)
    _raise_in_thread("Thread-1 (enqueue_updates)", _Rpc(grpc.StatusCode.CANCELLED))
    _raise_in_thread("Thread-2 (enqueue_updates)", _Rpc(grpc.StatusCode.UNAVAILABLE))
    _raise_in_thread("Thread-3 (run)", _Rpc(grpc.StatusCode.CANCELLED))
    _raise_in_thread("Thread-4 (enqueue_updates)", RuntimeError("not gRPC"))
    assert reported == [
        "Thread-2 (enqueue_updates)",
        "Thread-3 (run)",
        "Thread-4 (enqueue_updates)",
    ]
