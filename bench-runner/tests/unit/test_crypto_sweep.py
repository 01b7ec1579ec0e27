"""The crypto sweep's tables on scripted results documents."""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench_runner.cli import app
from bench_runner.crypto_sweep import (
    NotACryptoSweepError,
    Step,
    change,
    collect,
    costs,
    negotiated,
    sweep_markdown,
)


def _entry(
    mode: str,
    client: str,
    samples: list[float],
    *,
    ok: bool = True,
    parameters: dict[str, dict[str, int]] | None = None,
    round_trips: float = 9,
    payload: tuple[float, float] = (2000, 3000),
    cpu: tuple[float, float | None] = (0.2, 0.5),
) -> dict[str, Any]:
    transport = mode.split("/")[0]
    return {
        "mode": mode,
        "client": client,
        "client_version": "1.0",
        "transport": transport,
        "ok": ok,
        "iterations": len(samples) or 10,
        "warmup": 1,
        "commands": ["show version"],
        "verified_rtt_ms": 30.2,
        "samples_ms": samples,
        "stats": {"p50_ms": sorted(samples)[len(samples) // 2] if samples else None},
        "error_messages": [] if ok else ["iteration 1: kex: no matching | algorithm"],
        "wire": {
            "p50": {
                "round_trips": round_trips,
                "connects": 1,
                "bytes_out": payload[0],
                "bytes_in": payload[1],
            }
        },
        "resources": {"runner_cpu_s": cpu[0], "device_cpu_s": cpu[1]},
        "handshakes": {
            "parameters": {
                name: {"values": values, "source": "wire"}
                for name, values in (parameters or {}).items()
            }
        },
    }


def _run(run_id: str, kex: str, group: str, profile: str, modes: list[dict[str, Any]]) -> Any:
    return {
        "run_id": run_id,
        "started_at": "2026-11-27T13:00:00+00:00",
        "finished_at": "2026-11-27T13:01:00+00:00",
        "plan": "crypto-sweep",
        "lab": {"commit": "abc123"},
        "profile": {"name": profile, "engine": "nfq"},
        "device": {
            "openssh_version": "OpenSSH_10.0p2",
            "openssl_version": "OpenSSL 3.5.9",
            "nginx_version": "nginx/1.26.3",
            "crypto_profile": "modern",
            "crypto": {"held": {"kex": kex, "tls_group": group}},
        },
        "runner": {"python": "3.13.5", "openssl": "OpenSSL 3.5.9", "openssh": "OpenSSH_10.0p2"},
        "modes": modes,
    }


CLASSICAL = [100.0, 101.0, 99.0, 100.5, 100.2, 99.8, 100.1, 100.3, 99.9, 100.0]
SLOWER = [value + 20 for value in CLASSICAL]


def _sweep() -> list[Any]:
    return [
        _run(
            "crypto-t-x25519-local",
            "curve25519-sha256",
            "X25519",
            "local",
            [
                _entry(
                    "ssh/fresh-conn",
                    "asyncssh",
                    CLASSICAL,
                    parameters={"ssh_kex": {"curve25519-sha256": 10}},
                ),
                _entry(
                    "https/fresh-conn",
                    "httpx",
                    CLASSICAL,
                    parameters={"tls_group": {"x25519": 10}},
                    round_trips=3,
                ),
            ],
        ),
        _run(
            "crypto-t-mlkem768-local",
            "mlkem768x25519-sha256",
            "prime256v1",
            "local",
            [
                _entry(
                    "ssh/fresh-conn",
                    "asyncssh",
                    SLOWER,
                    parameters={"ssh_kex": {"mlkem768x25519-sha256": 10}},
                    payload=(3200, 4100),
                ),
                _entry("ssh/fresh-conn", "paramiko", [], ok=False),
                _entry(
                    "https/fresh-conn",
                    "httpx",
                    CLASSICAL,
                    parameters={
                        "tls_group": {"secp256r1": 10},
                        "tls_hello_retry": {"true": 10},
                    },
                    round_trips=4,
                ),
            ],
        ),
    ]


def test_each_run_is_a_step_named_by_what_its_device_held() -> None:
    sweep = collect(_sweep())
    assert sweep.steps == [
        Step("curve25519-sha256", "X25519"),
        Step("mlkem768x25519-sha256", "prime256v1"),
    ]
    assert sweep.profiles == ["local"]
    assert [(s.mode, s.client) for s in sweep.series] == [
        ("ssh/fresh-conn", "asyncssh"),
        ("https/fresh-conn", "httpx"),
        ("ssh/fresh-conn", "paramiko"),
    ]


def test_a_run_whose_device_held_nothing_is_refused() -> None:
    run = _sweep()[0]
    run["device"]["crypto"] = {}
    with pytest.raises(NotACryptoSweepError, match="held no key exchange"):
        collect([run])


def test_what_was_negotiated_or_why_not() -> None:
    ssh, failed, tls = _sweep()[1]["modes"]
    assert negotiated(ssh) == "mlkem768x25519-sha256"
    assert negotiated(failed) == "fails: iteration 1: kex: no matching \\| algorithm"
    assert negotiated(tls) == "secp256r1, HelloRetryRequest 10/10"


def test_costs_are_per_connection_and_a_failure_has_none() -> None:
    ssh, failed, _ = _sweep()[1]["modes"]
    found = costs(ssh)
    assert found is not None
    assert (found.round_trips, found.bytes_per_connection) == (9, 7300)
    assert found.client_cpu_ms == pytest.approx(20.0)  # 0.2 s over 10 connections
    assert found.device_cpu_ms == pytest.approx(50.0)
    assert costs(failed) is None


def test_a_clear_difference_has_an_interval_without_zero() -> None:
    found = change(SLOWER, CLASSICAL)
    assert found.delta_ms == pytest.approx(20.0)
    assert 19 < found.low_ms <= 20 <= found.high_ms < 21
    assert not found.within_noise


def test_the_same_distribution_is_within_noise() -> None:
    found = change(list(reversed(CLASSICAL)), CLASSICAL)
    assert found.delta_ms == 0
    assert found.within_noise


def test_the_page_has_every_series_and_says_how_it_was_made() -> None:
    page = sweep_markdown(_sweep(), "bench-runner crypto-table crypto-t", "2026-11-27 13:00 UTC")
    assert "`bench-runner crypto-table crypto-t`" in page
    assert "OpenSSH_10.0p2, OpenSSL 3.5.9, nginx/1.26.3, crypto profile modern" in page
    assert "## SSH key exchange" in page
    assert "## TLS key-share group" in page
    row = next(line for line in page.splitlines() if "paramiko" in line)
    assert "fails: iteration 1" in row
    assert "| fails |" in row  # no number from a failure
    cost = next(line for line in page.splitlines() if "asyncssh" in line and "+20.0 [" in line)
    assert "| +0 | +2,300 |" in cost
    # The device's group was not the client's first key share: one round trip more, and
    # the same p50 is within noise.
    tls_cost = next(line for line in page.splitlines() if "httpx" in line and "noise" in line)
    assert "| +1 |" in tls_cost


def test_crypto_table_command_writes_the_page_and_refuses_what_is_not_a_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEVICE_USERNAME", "labops")
    monkeypatch.setenv("DEVICE_PASSWORD", "Secret123x")
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    runs = _sweep()
    runs[1]["started_at"] = runs[1]["finished_at"] = "2026-11-27T13:05:00+00:00"
    for document in runs:
        run_dir = tmp_path / document["run_id"]
        run_dir.mkdir()
        (run_dir / "results.json").write_text(json.dumps(document), encoding="utf-8")
    result = CliRunner().invoke(app, ["crypto-table", "crypto-t"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "crypto-t" / "crypto.md").read_text(encoding="utf-8")
    assert "by `bench-runner crypto-table crypto-t`" in page
    assert "Against the first step (`curve25519-sha256`)" in page
    runs[0]["device"]["crypto"] = {}
    (tmp_path / runs[0]["run_id"] / "results.json").write_text(json.dumps(runs[0]))
    refused = CliRunner().invoke(app, ["crypto-table", "crypto-t"])
    assert refused.exit_code == 2
    assert "not a step of a crypto sweep" in refused.output
    assert CliRunner().invoke(app, ["crypto-table", "nothing-"]).exit_code == 2
