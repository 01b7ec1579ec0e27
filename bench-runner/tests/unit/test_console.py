"""The terminal's time split and handshakes tables."""

from rich.console import Console

from bench_runner.console import handshakes_table, time_split_table
from bench_runner.results import ModeRun, RunResult
from bench_runner.wire.handshake_model import unavailable
from bench_runner.wire.timeline import TimeSplit, summarize_splits


def test_time_split_table_shows_each_part_and_the_stalls_per_iteration(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    split = TimeSplit(
        network_ms=30.0,
        device_ms=5.0,
        client_ms=1.5,
        stall_ms=70.0,
        stalls=1,
        device_stalls=1,
        client_stalls=0,
        unaccounted_ms=0.0,
    )
    run.modes[0].time_split = summarize_splits(30.0, [split, split])
    console = Console(width=200, record=True)
    console.print(time_split_table(run))
    text = console.export_text()
    assert "https/keep-alive" in text
    assert "ssh/reuse-conn" not in text  # no split: not counted, not shown as zeros
    row = next(line for line in text.splitlines() if "https/keep-alive" in line)
    assert all(figure in row for figure in ("30.0", "5.0", "1.5", "70.0", "1.0"))


def test_handshakes_table_names_what_a_mode_s_connections_differed_on(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    console = Console(width=250, record=True)
    console.print(handshakes_table(run))
    rows = {line.split()[1]: line for line in console.export_text().splitlines() if "/" in line}
    https, ssh = rows["https/keep-alive"], rows["ssh/reuse-conn"]
    assert "TLSv1.3 x25519" in https
    assert "TLS_AES_256_GCM_SHA384" in https
    assert https.split("│")[-2].strip() == "-"
    assert "curve25519-sha256 (1) | sntrup761x25519-sha512@openssh.com (1)" in ssh
    assert ssh.split("│")[-2].strip() == (
        "ssh_kex curve25519-sha256 (1) | sntrup761x25519-sha512@openssh.com (1)"
    )


def test_handshakes_table_leaves_out_a_mode_whose_handshakes_were_not_read(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    run.modes[0].handshakes = unavailable("packet socket not permitted")
    console = Console(width=250, record=True)
    console.print(handshakes_table(run))
    text = console.export_text()
    assert "https/keep-alive" not in text  # never a row of dashes claiming a handshake
    assert "ssh/reuse-conn" in text
