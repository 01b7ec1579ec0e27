"""Prometheus text exposition of the active profile, its generation, the run lock, the engine and
the delayer counters."""

from .controller import Controller
from .fleet import FleetAddresses
from .lease import RunLock

DELAYER_COUNTERS = {
    "received": "netem_delayer_received_packets_total",
    "accepted": "netem_delayer_accepted_packets_total",
    "dropped_loss": "netem_delayer_loss_dropped_packets_total",
    "dropped_limit": "netem_delayer_limit_dropped_packets_total",
    "enobufs": "netem_delayer_socket_overruns_total",
    "verdict_errors": "netem_delayer_verdict_errors_total",
    "kernel_stamped": "netem_delayer_kernel_stamped_packets_total",
    "verdict_messages": "netem_delayer_verdict_messages_total",
}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{key}="{_escape(value)}"' for key, value in labels.items()) + "}"


def render(controller: Controller, run_lock: RunLock, fleet: FleetAddresses | None = None) -> str:
    lines: list[str] = []

    def gauge(
        name: str, help_text: str, samples: list[tuple[str, float]], kind: str = "gauge"
    ) -> None:
        lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"])
        lines.extend(f"{name}{labels} {value:g}" for labels, value in samples)

    profile = controller.profile
    engine = controller.choice.name
    gauge(
        "netem_engine_info",
        "Impairment engine in use, the one NETEM_ENGINE requested, and why.",
        [
            (
                _labels(
                    engine=engine,
                    requested=controller.choice.requested,
                    reason=controller.choice.reason,
                ),
                1,
            )
        ],
    )
    gauge(
        "netem_ready",
        "1 once the initial profile is applied.",
        [("", 1 if controller.ready else 0)],
    )
    # Not `instance`: Prometheus sets that label to the scrape target.
    gauge(
        "netem_instance_info",
        "Random id of this netem process; a new one means netem restarted.",
        [(_labels(netem_instance=controller.instance), 1)],
    )
    gauge(
        "netem_profile_generation",
        "Changes of what is in effect (apply, clear, repair, failure) since start.",
        [("", controller.history.generation)],
    )
    gauge(
        "netem_lock_held",
        "1 while a run holds the lab's run lock.",
        [("", 1 if run_lock.holder() else 0)],
    )
    if fleet is not None:
        wanted = fleet.fleet.size if fleet.fleet.block is not None else 0
        gauge(
            "netem_fleet_addresses",
            "Emulated devices' addresses on the interface, by state (wanted, missing).",
            [
                (_labels(state="wanted"), wanted),
                (_labels(state="missing"), len(fleet.missing())),
            ],
        )
    gauge(
        "netem_watchdog_repairs_total",
        "Times the watchdog found rules missing and re-applied them.",
        [("", controller.repairs)],
        kind="counter",
    )
    if profile is not None:
        gauge(
            "netem_profile_info",
            "Active profile.",
            [(_labels(profile=profile.name, engine=engine), 1)],
        )
        gauge(
            "netem_profile_rtt_seconds",
            "Configured round-trip delay.",
            [("", profile.rtt_ms / 1000)],
        )
        gauge(
            "netem_profile_jitter_seconds",
            "Configured round-trip jitter (uniform +-).",
            [("", profile.jitter_ms / 1000)],
        )
        gauge(
            "netem_profile_loss_ratio",
            "Configured random loss per packet and direction.",
            [("", profile.loss_pct / 100)],
        )
        gauge(
            "netem_profile_rate_bits_per_second",
            "Configured rate per direction (0 = unlimited).",
            [("", profile.rate_mbit * 1e6)],
        )
        gauge(
            "netem_profile_split_ratio",
            "Fraction of the delay applied client->device.",
            [("", profile.split)],
        )
    if controller.applied_at is not None:
        gauge(
            "netem_profile_applied_timestamp_seconds",
            "When the active profile was applied.",
            [("", controller.applied_at.timestamp())],
        )
    counters = controller.engine.counters()
    if counters:
        gauge(
            "netem_delayer_held_packets",
            "Packets the delayer holds right now.",
            [
                (_labels(direction=direction), stats.get("held", 0))
                for direction, stats in counters.items()
            ],
        )
        for key, name in DELAYER_COUNTERS.items():
            gauge(
                name,
                f"nfq-delayer counter {key} (since the delayer started).",
                [
                    (_labels(direction=direction), stats.get(key, 0))
                    for direction, stats in counters.items()
                ],
                kind="counter",
            )
    return "\n".join(lines) + "\n"
