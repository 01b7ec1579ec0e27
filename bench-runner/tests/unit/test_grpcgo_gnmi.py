"""grpc-go's gNMI through goclient-gnmi (modes/clients/grpcgo_gnmi.py): the stream mode's update
delays and sample rate from the program's lines, and the process protocol against a fake
goclient-gnmi (the TLS choice in its environment, the sample window after the iterations)."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench_runner.modes import Mode
from bench_runner.modes.base import StreamRateSession, Target
from bench_runner.modes.clients.goclient_process import GoClientError, program_version
from bench_runner.modes.clients.grpcgo_gnmi import GOCLIENT_GNMI_ENV, parse_rate, parse_update
from bench_runner.modes.registry import find
from bench_runner.runner import run_iteration
from fake_goclient import install

TARGET = Target("192.0.2.1", 22, 443, "labops", "s3cret-value", gnmi_port=19339)


def grpc_go(name: str) -> Mode:
    found = find(name, "grpc-go")
    assert found is not None
    return found


def _update(**fields: Any) -> str:
    base = {
        "value": "bench ab12 stream 1",
        "interface": "Loopback0",
        "timestamp_ns": 1_800_000_000_000_000_000,
        "received_ns": 1_800_000_000_015_400_000,
    }
    return json.dumps({**base, **fields})


def test_an_updates_delay_is_its_arrival_less_the_devices_timestamp() -> None:
    update = parse_update(_update())
    assert update.delay_ns == 15_400_000
    assert update.value == "bench ab12 stream 1"
    with pytest.raises(GoClientError, match="share a clock"):
        parse_update(_update(received_ns=1_799_999_999_000_000_000))
    with pytest.raises(GoClientError, match="unreadable stream update"):
        parse_update('{"value": "x"}')


def test_the_sample_rate_is_updates_over_the_window() -> None:
    rate = parse_rate(
        '{"updates": 1500, "window_s": 2, "sample_interval_ms": 1, "path": "/interfaces"}'
    )
    assert rate.updates_per_second == 750.0
    assert (rate.updates, rate.window_s, rate.sample_interval_ms) == (1500, 2.0, 1.0)
    with pytest.raises(GoClientError, match="unreadable sample rate"):
        parse_rate('{"updates": 3, "window_s": 0, "sample_interval_ms": 1, "path": "/"}')


# --- the process, against a fake goclient-gnmi ----------------------------------------------

FAKE = r"""
with open(os.environ["FAKE_LOG"] + "." + sys.argv[1].replace("/", "_"), "w") as env_log:
    json.dump({"verify": os.environ.get("GOCLIENT_GNMI_TLS_VERIFY")}, env_log)
conn = {"tls_version": 772, "cipher_suite": 4865, "group": 29, "alpn": "h2",
        "resumed": False, "used_0rtt": False}
print(json.dumps({"event": "ready", "ok": True, "client": "grpc-go",
                  "version": "grpc-go v1.85.0", "connections": [conn]}), flush=True)
index = 0
for line in sys.stdin:
    step = json.loads(line)
    index += 1
    if sys.argv[1] == "gnmi/sample-rate":
        outputs = [json.dumps({"updates": 1800, "window_s": 2, "sample_interval_ms": 1,
                               "path": "/interfaces/interface[name=Loopback0]/state/counters"})]
    else:
        device = 1_800_000_000_000_000_000 + index * 10**9
        outputs = [json.dumps({"value": f"bench x stream {index}", "interface": "Loopback0",
                               "timestamp_ns": device, "received_ns": device + 15_250_000})]
    print(json.dumps({"event": "iteration", "index": index, "start_ns": 1000 * index,
                      "end_ns": 1000 * index + 700, "wall_ns": 40_000_000, "ok": True,
                      "outputs": outputs}), flush=True)
print(json.dumps({"event": "done", "ok": True}), flush=True)
"""


@pytest.fixture
def fake_goclient_gnmi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return install(tmp_path, monkeypatch, GOCLIENT_GNMI_ENV, "grpc-go v1.85.0 (go1.26.8)", FAKE)


def test_stream_iterations_are_update_delays_and_the_rate_comes_after(
    fake_goclient_gnmi: Path,
) -> None:
    async def scenario() -> tuple[list[Any], Any]:
        timings = []
        async with grpc_go("gnmi/stream").session(TARGET) as session:
            for _ in range(2):
                timings.append(await run_iteration(session, ["show version"], 5.0))
            assert session.alpn.selected == {"h2": 1}  # type: ignore[attr-defined]
        assert isinstance(session, StreamRateSession)
        return timings, session.stream

    timings, rate = asyncio.run(scenario())
    for index, (timing, error) in enumerate(timings, start=1):
        assert error is None
        assert timing.wall_ms == pytest.approx(15.25)
        assert timing.started_ns == 1_800_000_000_000_000_000 + index * 10**9
        assert timing.ended_ns - timing.started_ns == 15_250_000
    assert rate is not None
    assert rate.updates_per_second == 900.0
    logged = json.loads(fake_goclient_gnmi.read_text())
    assert logged["argv"] == ["gnmi/sample-rate"]  # the last process the fake logged
    assert logged["job"]["port"] == 19339
    assert "s3cret-value" not in json.dumps(logged["job"])
    verify = json.loads(Path(f"{fake_goclient_gnmi}.gnmi_stream").read_text())
    assert verify == {"verify": "0"}


def test_an_inventory_that_verifies_tells_the_program(
    fake_goclient_gnmi: Path,
) -> None:
    async def scenario() -> None:
        verifying = Target("192.0.2.1", 22, 443, "labops", "pw", gnmi_tls_verify=True)
        async with grpc_go("gnmi/reuse-conn").session(verifying) as session:
            await run_iteration(session, ["show version"], 5.0)

    asyncio.run(scenario())
    logged = json.loads(Path(f"{fake_goclient_gnmi}.gnmi_reuse-conn").read_text())
    assert logged == {"verify": "1"}


def test_version_from_the_program(fake_goclient_gnmi: Path) -> None:
    program_version.cache_clear()
    assert grpc_go("gnmi/get-multi").client_version() == "grpc-go v1.85.0 (go1.26.8)"
    program_version.cache_clear()
