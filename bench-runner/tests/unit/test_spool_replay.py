import json
import os
from base64 import b64encode
from pathlib import Path

import pytest

from bench_runner.results import ModeRun, RunResult
from bench_runner.settings import Settings
from bench_runner.sinks.publish import publish_run
from bench_runner.sinks.replay import replay_spool
from bench_runner.sinks.spool import Spool
from conftest import FakeHttpServer

CLOSED_PORT_URL = "http://127.0.0.1:9"  # discard port: nothing listens, connect is refused


def written_in_order(*paths: Path) -> None:
    """Give the files modification times a minute apart, in this order (files written in
    one test may share a timestamp on a coarse clock)."""
    for minute, path in enumerate(paths):
        moment = 1_763_809_200 + 60 * minute
        os.utime(path, (moment, moment))


def settings_for(tmp_path: Path, influx_url: str, pushgateway_url: str) -> Settings:
    return Settings(
        influx_url=influx_url,
        influx_db="transport_lab",
        influx_username="writer",
        influx_password="s3cret",
        pushgateway_url=pushgateway_url,
        results_dir=tmp_path,
    )


def test_publish_writes_influx_and_pushgateway(
    tmp_path: Path, fake_http_server: FakeHttpServer, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, mode_runs = sample_run
    fake_http_server.status = 204
    deliveries = publish_run(
        settings_for(tmp_path, fake_http_server.url, fake_http_server.url), run, mode_runs
    )
    assert [delivery.delivered for delivery in deliveries] == [True, True]
    write, push = fake_http_server.requests
    assert write.method == "POST"
    assert write.path == "/write?db=transport_lab&precision=ns"
    assert write.headers["Authorization"] == "Basic " + b64encode(b"writer:s3cret").decode()
    lines = write.body.decode().splitlines()
    # The run, 4 iterations, 2 summaries: as many as the delivery reports.
    assert deliveries[0].detail.startswith("7 points to ")
    assert sum(line.startswith("run,") for line in lines) == 1
    assert sum(line.startswith("iteration,") for line in lines) == 4
    assert sum(line.startswith("mode_summary,") for line in lines) == 2
    assert 'ok=false,error="show clock: % Invalid x"' in write.body.decode()
    assert push.method == "PUT"
    assert push.path == "/metrics/job/transport_bench/profile/regional"
    assert b"transport_bench_mode_p50_seconds{" in push.body
    assert not (tmp_path / "spool").exists()


def test_down_sinks_spool_then_replay_delivers_and_empties_spool(
    tmp_path: Path, fake_http_server: FakeHttpServer, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, mode_runs = sample_run
    deliveries = publish_run(
        settings_for(tmp_path, CLOSED_PORT_URL, CLOSED_PORT_URL), run, mode_runs
    )
    assert [delivery.delivered for delivery in deliveries] == [False, False]
    spooled = sorted(path.name for path in (tmp_path / "spool").iterdir())
    assert spooled == [f"{run.run_id}.lp", f"{run.run_id}.pushgateway.json"]
    spooled_lines = (tmp_path / "spool" / f"{run.run_id}.lp").read_text()
    spooled_push = json.loads((tmp_path / "spool" / f"{run.run_id}.pushgateway.json").read_text())
    assert spooled_push["grouping_key"] == {"profile": "regional"}

    # Still down: replay keeps everything.
    still_down = replay_spool(settings_for(tmp_path, CLOSED_PORT_URL, CLOSED_PORT_URL))
    assert [delivery.delivered for delivery in still_down] == [False, False]
    assert len(list((tmp_path / "spool").iterdir())) == 2

    # Back up: replay sends the same bytes and the metrics, then empties the spool.
    fake_http_server.status = 204
    replayed = replay_spool(settings_for(tmp_path, fake_http_server.url, fake_http_server.url))
    assert [delivery.delivered for delivery in replayed] == [True, True]
    write, push = fake_http_server.requests
    assert write.body.decode() == spooled_lines
    assert push.path == "/metrics/job/transport_bench/profile/regional"
    pushed = push.body.decode()
    assert 'transport_bench_mode_errors{client="asyncssh"' in pushed
    assert "transport_bench_run_finished_timestamp_seconds" in pushed
    assert list((tmp_path / "spool").iterdir()) == []


def test_influx_rejection_is_spooled(
    tmp_path: Path, fake_http_server: FakeHttpServer, sample_run: tuple[RunResult, list[ModeRun]]
) -> None:
    run, mode_runs = sample_run
    fake_http_server.status = 500
    deliveries = publish_run(
        settings_for(tmp_path, fake_http_server.url, CLOSED_PORT_URL), run, mode_runs
    )
    influx = deliveries[0]
    assert not influx.delivered
    assert "HTTP 500" in influx.detail
    assert influx.spooled_to is not None
    assert influx.spooled_to.exists()


def test_replay_sends_a_payload_spooled_in_milliseconds_as_milliseconds(
    tmp_path: Path, fake_http_server: FakeHttpServer
) -> None:
    """Spool files written before the runner used nanoseconds keep their meaning."""
    spool = tmp_path / "spool"
    spool.mkdir()
    (spool / "old-run.lp").write_text("iteration,mode=m wall_ms=1.5 1763809200000\n")
    (spool / "new-run.lp").write_text("iteration,mode=m wall_ms=1.5 1763809200000000000\n")
    written_in_order(spool / "old-run.lp", spool / "new-run.lp")
    replayed = replay_spool(settings_for(tmp_path, fake_http_server.url, CLOSED_PORT_URL))
    assert [delivery.detail for delivery in replayed] == [
        "replayed old-run.lp: 1 points",
        "replayed new-run.lp: 1 points",
    ]
    assert [request.path for request in fake_http_server.requests] == [
        "/write?db=transport_lab&precision=ms",
        "/write?db=transport_lab&precision=ns",
    ]


def test_a_spooled_file_that_is_not_line_protocol_is_set_aside_and_replay_goes_on(
    tmp_path: Path, fake_http_server: FakeHttpServer
) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    (spool / "a-broken.lp").write_text("garbage\n")
    (spool / "b-good.lp").write_text("iteration,mode=m wall_ms=1.5 1763809200000000000\n")
    written_in_order(spool / "a-broken.lp", spool / "b-good.lp")
    replayed = replay_spool(settings_for(tmp_path, fake_http_server.url, CLOSED_PORT_URL))
    assert [delivery.delivered for delivery in replayed] == [False, True]
    assert replayed[0].set_aside
    assert "a-broken.lp is not a payload influxdb can take" in replayed[0].detail
    assert "no timestamp at the end of line 1" in replayed[0].detail
    assert replayed[0].spooled_to == spool / "corrupt" / "a-broken.lp"
    assert (spool / "corrupt" / "a-broken.lp").read_text() == "garbage\n"
    assert sorted(path.name for path in spool.iterdir()) == ["corrupt"]


def test_a_line_protocol_file_cut_short_is_set_aside_whole(
    tmp_path: Path, fake_http_server: FakeHttpServer
) -> None:
    """InfluxDB would store the lines before the cut and refuse the rest: nothing is sent."""
    spool = tmp_path / "spool"
    spool.mkdir()
    (spool / "cut.lp").write_text(
        "iteration,mode=m wall_ms=1.5 1763809200000000000\niteration,mode=m wall_ms=1."
    )
    replayed = replay_spool(settings_for(tmp_path, fake_http_server.url, CLOSED_PORT_URL))
    assert [delivery.set_aside for delivery in replayed] == [True]
    assert "line 2" in replayed[0].detail
    assert fake_http_server.requests == []
    assert (spool / "corrupt" / "cut.lp").exists()


@pytest.mark.parametrize(
    "content",
    [
        '{"job": "transport_bench", "grouping_key": {"profile": "reg',  # truncated JSON
        '{"job": "transport_bench"}',  # a field missing
        '{"job": "j", "grouping_key": {}, "exposition": "not { an exposition"}',
        "\udcff",
    ],
)
def test_a_corrupt_pushgateway_file_is_set_aside_and_replay_goes_on(
    tmp_path: Path,
    fake_http_server: FakeHttpServer,
    sample_run: tuple[RunResult, list[ModeRun]],
    content: str,
) -> None:
    run, mode_runs = sample_run
    publish_run(settings_for(tmp_path, CLOSED_PORT_URL, CLOSED_PORT_URL), run, mode_runs)
    spool = tmp_path / "spool"
    (spool / f"{run.run_id}.lp").unlink()
    (spool / "broken.pushgateway.json").write_bytes(
        content.encode("utf-8", errors="surrogateescape")
    )
    written_in_order(spool / "broken.pushgateway.json", spool / f"{run.run_id}.pushgateway.json")
    fake_http_server.status = 200
    replayed = replay_spool(settings_for(tmp_path, CLOSED_PORT_URL, fake_http_server.url))
    assert [(delivery.delivered, delivery.set_aside) for delivery in replayed] == [
        (False, True),
        (True, False),
    ]
    assert replayed[0].detail.startswith("broken.pushgateway.json is not a payload pushgateway")
    assert (spool / "corrupt" / "broken.pushgateway.json").exists()
    assert [request.path for request in fake_http_server.requests] == [
        "/metrics/job/transport_bench/profile/regional"
    ]


def test_a_file_set_aside_twice_keeps_both(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    for _ in range(2):
        spool.save("x.lp", "garbage")
        spool.set_aside(spool.directory / "x.lp")
    assert sorted(path.name for path in (spool.directory / "corrupt").iterdir()) == [
        "x.lp",
        "x.lp.1",
    ]


def test_replay_follows_the_time_files_were_written_not_their_names(
    tmp_path: Path, fake_http_server: FakeHttpServer
) -> None:
    """A named run (``--run-id aaa``) spooled after a dated one is replayed after it: the
    Pushgateway keeps the newer push of a group, InfluxDB gets runs as they happened."""
    spool = tmp_path / "spool"
    spool.mkdir()
    for name, profile in (("20261122T010000Z-abc", "older"), ("aaa-named", "newer")):
        (spool / f"{name}.pushgateway.json").write_text(
            json.dumps(
                {
                    "job": "transport_bench",
                    "grouping_key": {"profile": "regional"},
                    "exposition": f'transport_bench_mode_p50_seconds{{run="{profile}"}} 1.0\n',
                }
            )
        )
        (spool / f"{name}.lp").write_text(f"run,run_id={name} ok=true 1763809200000000000\n")
    written_in_order(
        spool / "20261122T010000Z-abc.lp",
        spool / "20261122T010000Z-abc.pushgateway.json",
        spool / "aaa-named.lp",
        spool / "aaa-named.pushgateway.json",
    )
    fake_http_server.status = 204
    replayed = replay_spool(settings_for(tmp_path, fake_http_server.url, fake_http_server.url))
    assert [delivery.detail.split(":")[0] for delivery in replayed] == [
        "replayed 20261122T010000Z-abc.lp",
        "replayed aaa-named.lp",
        "replayed 20261122T010000Z-abc.pushgateway.json",
        "replayed aaa-named.pushgateway.json",
    ]
    bodies = [request.body.decode() for request in fake_http_server.requests]
    assert "run_id=20261122T010000Z-abc" in bodies[0]
    assert 'run="newer"' in bodies[-1]
