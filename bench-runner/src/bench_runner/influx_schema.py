"""Every name the lab writes to InfluxDB: measurements, tag keys and field keys (what they
mean: SCHEMA.md and docs/results.md). The runner's sink (sinks/influx.py), the load
generator (load/'s results.py) and the dashboards' generator (grafana/) spell them from
here, so a name cannot differ between the points and the panels that query them.

A leaf module, pure (no I/O, the standard library only): the load generator's image and
the dashboards' image install bench-runner without its dependencies and import it as well,
and the modules that name the per-phase, wire and time-split fields (phases.py,
wire/model.py, wire/timeline.py, below the sinks) take their naming rules from it. Each
name is on the wire and in stored points: renaming one here splits every series in two.
"""

from collections.abc import Iterable


class Measurement:
    RUN = "run"
    """One point per run of the runner, at its start: what the dashboards annotate."""
    ITERATION = "iteration"
    """One point per measured iteration."""
    MODE_SUMMARY = "mode_summary"
    """One point per measured series of a run, when its mode finished."""
    VERDICT = "verdict"
    """One point per judged series, at the run's start."""
    LOAD = "load"
    """A load run (load/): one point per second per (transport, mode, client)."""
    LOAD_RESOURCES = "load_resources"
    """One point per second of a load run: users and resources."""
    LOAD_STEP = "load_step"
    """One point per step of a load sweep, after its ramp-up."""
    FLEET_JOB = "fleet_job"
    """One point per fleet job step (Nornir, Ansible), when it ended."""
    FLEET_KNEE = "fleet_knee"
    """One point per (series, profile, devices) of a fleet sweep, when the sweep ended: where
    the client's CPU, not the network, began to set the job's time (fleet_job/knee.py)."""
    HELD_CONNECTIONS = "held_connections"
    """One point per step of a held-connections sweep that held (held/publish.py)."""


class Tag:
    """Tag keys. Every point of the runner's: ``RUN_TAGS`` (and a relayed job's ``RELAY_TAGS``);
    ``run`` adds ``PLAN``; a series' points (iteration, mode_summary, verdict) add
    ``SERIES_TAGS`` and the mode's parameters
    (``PARAMETER_TAGS``, those it has); ``mode_summary`` adds what its connections negotiated
    (``HANDSHAKE_TAGS``, those of its protocol). A load run's points: ``LOAD_RUN_TAGS``;
    ``load`` adds ``TRANSPORT``, ``MODE`` and ``CLIENT``, ``load_step`` ``TRANSPORT`` and
    ``STEP``."""

    RUN_ID = "run_id"
    SWEEP = "sweep"
    PROFILE = "profile"
    LAN_PROFILE = "lan_profile"
    """A relayed job's LAN hop (``profile`` is then the WAN hop's); absent for direct runs."""
    ENGINE = "engine"
    PLAN = "plan"
    MODE = "mode"
    TRANSPORT = "transport"
    CLIENT = "client"
    CLIENT_VERSION = "client_version"
    SERIES = "series"
    """``mode · client version · parameters``: one measured series, named for legends."""
    FRAMING = "framing"
    REPLY_BYTES = "reply_bytes"
    BULK_SIZE = "bulk_size"
    HOSTS = "hosts"
    REPEATS = "repeats"
    ENCODING = "encoding"
    """RESTCONF's media type: ``json`` or ``xml``."""
    KIND = "kind"
    DEVICES = "devices"
    STEP = "step"
    TOOL = "tool"
    CONNECTION = "connection"
    CONNECTIONS = "connections"
    """A held-connections step's count."""
    OPERATION = "operation"
    SSH_TYPE = "ssh_type"
    PERSISTENT = "persistent"
    SSH_KEX = "ssh_kex"
    """The SSH key exchange algorithm."""
    SSH_HOST_KEY = "ssh_host_key"
    """The server's host key (signature) algorithm."""
    SSH_CIPHER_CS = "ssh_cipher_cs"
    """The cipher from the client to the server; ``_SC`` the other way."""
    SSH_CIPHER_SC = "ssh_cipher_sc"
    SSH_MAC_CS = "ssh_mac_cs"
    """The MAC from the client to the server, ``<implicit>`` with an AEAD cipher."""
    SSH_MAC_SC = "ssh_mac_sc"
    TLS_VERSION = "tls_version"
    """``TLSv1.3``, ``TLSv1.2``."""
    TLS_CIPHER = "tls_cipher"
    """The cipher suite, by its IANA name."""
    TLS_GROUP = "tls_group"
    """The key-share group (IANA name: ``x25519``, ``X25519MLKEM768``, ``secp256r1``)."""
    TLS_ALPN = "tls_alpn"
    """The application protocol the server selected, as the client library reports it."""
    TLS_RESUMED = "tls_resumed"
    """``true`` for a resumed session (a pre-shared key accepted), else ``false``."""
    TLS_HELLO_RETRY = "tls_hello_retry"
    """``true`` when the server asked for another key share (HelloRetryRequest)."""
    TLS_EARLY_DATA = "tls_early_data"
    """QUIC only: ``sent`` when the client sent 0-RTT packets (early data) on the
    connection, else ``not sent``; whether the server accepted them it does not say."""


RUN_TAGS = (Tag.RUN_ID, Tag.SWEEP, Tag.PROFILE, Tag.ENGINE)
RELAY_TAGS = (Tag.LAN_PROFILE,)
"""What a relayed job's points add to ``RUN_TAGS``."""
SERIES_TAGS = (Tag.MODE, Tag.TRANSPORT, Tag.CLIENT, Tag.CLIENT_VERSION, Tag.SERIES)
PARAMETER_TAGS = (Tag.FRAMING, Tag.REPLY_BYTES, Tag.BULK_SIZE, Tag.HOSTS, Tag.REPEATS, Tag.ENCODING)
"""The modes' ``parameters``, each a tag of its own name."""
LOAD_RUN_TAGS = (Tag.RUN_ID, Tag.KIND, Tag.PROFILE, Tag.DEVICES)
FLEET_JOB_TAGS = (
    Tag.TOOL,
    Tag.CONNECTION,
    Tag.OPERATION,
    Tag.TRANSPORT,
    Tag.SSH_TYPE,
    Tag.PERSISTENT,
    Tag.CLIENT_VERSION,
    Tag.SERIES,
)
"""What a fleet job step's point adds to ``RUN_TAGS``: its tool and how it was run; the
series is the step's label, the client version the tool's."""
FLEET_KNEE_TAGS = (*FLEET_JOB_TAGS, Tag.DEVICES)
"""What a fleet sweep's knee point adds to ``RUN_TAGS`` (its run id is the sweep's): the
series, and the devices count whose workers steps it was found across."""
HELD_TAGS = (Tag.TRANSPORT, Tag.CLIENT, Tag.CLIENT_VERSION, Tag.CONNECTIONS)
"""What a held-connections step's point adds to ``RUN_TAGS`` (its run id is the sweep's)."""
SSH_HANDSHAKE_TAGS = (
    Tag.SSH_KEX,
    Tag.SSH_HOST_KEY,
    Tag.SSH_CIPHER_CS,
    Tag.SSH_CIPHER_SC,
    Tag.SSH_MAC_CS,
    Tag.SSH_MAC_SC,
)
TLS_HANDSHAKE_TAGS = (
    Tag.TLS_VERSION,
    Tag.TLS_CIPHER,
    Tag.TLS_GROUP,
    Tag.TLS_ALPN,
    Tag.TLS_RESUMED,
    Tag.TLS_HELLO_RETRY,
)
QUIC_HANDSHAKE_TAGS = (Tag.TLS_EARLY_DATA,)
"""What a QUIC connection's handshake adds to TLS's."""
HANDSHAKE_TAGS = SSH_HANDSHAKE_TAGS + TLS_HANDSHAKE_TAGS + QUIC_HANDSHAKE_TAGS
"""What the connections of a ``mode_summary`` point's mode negotiated (SCHEMA.md,
``modes[].handshakes``): the value, or the values joined by ``HANDSHAKE_VALUE_SEPARATOR``
(sorted) when its connections negotiated different ones; absent for the protocol the mode
does not speak. A handful of values each: a tag, which panels group and label by."""
HANDSHAKE_VALUE_SEPARATOR = "|"


class RunField:
    """Fields of ``run``."""

    TITLE = "title"
    MODES = "modes"
    ERRORS = "errors"
    OK = "ok"
    COMMIT = "commit"
    DURATION_S = "duration_s"


class IterationField:
    """Fields of ``iteration``, then the families ``wire_field``, ``phase_field``,
    ``time_field`` (with ``TIME_STALLS`` and ``TIME_UNACCOUNTED_MS``) and ``hop_field``."""

    WALL_MS = "wall_ms"
    ITERATION = "iteration"
    OK = "ok"
    ERROR = "error"
    EXCLUDED = "excluded"
    LAN_ROUND_TRIPS = "lan_round_trips"
    """The LAN hop's round trips (relayed modes: the head-end's count, or the runner's on the
    device's session inside the jump host's channel)."""
    TIME_STALLS = "time_stalls"
    TIME_UNACCOUNTED_MS = "time_unaccounted_ms"


class SummaryField:
    """Fields of ``mode_summary``, then the families ``parameter_field``,
    ``wire_p50_field``, ``phase_p50_field``, ``time_p50_field`` (with ``TIME_STALLS``) and
    ``hop_p50_field``."""

    N = "n"
    ERRORS = "errors"
    EXCLUDED = "excluded"
    MIN_MS = "min_ms"
    MAX_MS = "max_ms"
    MEAN_MS = "mean_ms"
    P50_MS = "p50_ms"
    P95_MS = "p95_ms"
    P99_MS = "p99_ms"
    STDDEV_MS = "stddev_ms"
    WARMUP_DISCARDED = "warmup_discarded"
    SPEEDUP_VS_BASELINE = "speedup_vs_baseline"
    P50_VS_FLOOR = "p50_vs_floor"
    CONFIGURED_RTT_MS = "configured_rtt_ms"
    VERIFIED_RTT_MS = "verified_rtt_ms"
    LAN_CONFIGURED_RTT_MS = "lan_configured_rtt_ms"
    LAN_VERIFIED_RTT_MS = "lan_verified_rtt_ms"
    LAN_ROUND_TRIPS_P50 = "lan_round_trips_p50"
    MIN_ROUND_TRIPS = "min_round_trips"
    EXPECTED_ROUND_TRIPS = "expected_round_trips"
    COMMANDS_PER_ITERATION = "commands_per_iteration"
    CONNECTIONS_PER_ITERATION = "connections_per_iteration"
    COMMANDS_PER_REQUEST = "commands_per_request"
    TRANSFER_BYTES = "transfer_bytes"
    THROUGHPUT_MB_S = "throughput_mb_s"
    UPDATES_PER_SECOND = "updates_per_second"
    """A streaming mode's (gnmi/stream) updates per second from one SAMPLE subscription."""
    ADDED_RTT_MS = "added_rtt_ms"
    RTT_MODEL_P50_MS = "rtt_model_p50_ms"
    RTT_MODEL_LOCAL_P50_MS = "rtt_model_local_p50_ms"
    RTT_MODEL_ROUND_TRIPS = "rtt_model_round_trips"
    RUNNER_CPU_S = "runner_cpu_s"
    RUNNER_RSS_PEAK_BYTES = "runner_rss_peak_bytes"
    DEVICE_CPU_S = "device_cpu_s"
    DEVICE_MEMORY_PEAK_BYTES = "device_memory_peak_bytes"
    TIME_STALLS = "time_stalls"
    RECOVERED_ITERATIONS = "recovered_iterations"
    """Successful iterations in which the capture saw a TCP segment sent again."""
    RECOVERED_SHARE = "recovered_share"
    """``recovered_iterations`` over the successful iterations, 0 to 1."""
    LOSS_MODEL_P_MEET = "loss_model_p_meet"
    """The loss model's probability that an iteration meets at least one loss (loss_model.py);
    absent when the profile has no loss."""
    LOSS_MODEL_EXTRA_MS = "loss_model_extra_ms"
    LOSS_MODEL_CLEAN_P50_MS = "loss_model_clean_p50_ms"
    LOSS_MODEL_P95_MS = "loss_model_p95_ms"
    LOSS_MODEL_P99_MS = "loss_model_p99_ms"
    HANDSHAKES = "handshakes"
    """Connections whose handshake the capture read whole (``HANDSHAKE_TAGS`` say what
    they negotiated)."""
    P50_CI_LOW_MS = "p50_ci_low_ms"
    """The ends of the 95 % intervals of p50, p95 and p99 (stats.py); absent with too few
    samples for one."""
    P50_CI_HIGH_MS = "p50_ci_high_ms"
    P95_CI_LOW_MS = "p95_ci_low_ms"
    P95_CI_HIGH_MS = "p95_ci_high_ms"
    P99_CI_LOW_MS = "p99_ci_low_ms"
    P99_CI_HIGH_MS = "p99_ci_high_ms"
    P50_CI_HALF_WIDTH_PCT = "p50_ci_half_width_pct"
    PRECISION_TARGET_PCT = "precision_target_pct"
    PRECISE = "precise"
    """1 when the median reached its target half-width, else 0."""
    STOP_REASON = "stop_reason"
    """Why the iterations stopped: precise, max, cap, fixed or aborted (a string)."""
    SPEEDUP_VS_BASELINE_CI_LOW = "speedup_vs_baseline_ci_low"
    SPEEDUP_VS_BASELINE_CI_HIGH = "speedup_vs_baseline_ci_high"
    P50_VS_FLOOR_CI_LOW = "p50_vs_floor_ci_low"
    P50_VS_FLOOR_CI_HIGH = "p50_vs_floor_ci_high"


class VerdictField:
    """Fields of ``verdict``."""

    VERDICT = "verdict"
    TITLE = "title"
    REGRESSION = "regression"
    MEDIAN_MS = "median_ms"
    BASELINE_MEDIAN_MS = "baseline_median_ms"
    BASELINE_MAD_MS = "baseline_mad_ms"
    CHANGE_PCT = "change_pct"
    THRESHOLD_PCT = "threshold_pct"
    ROBUST_Z = "robust_z"
    NIGHTS = "nights"
    RULE = "rule"
    CHANGEPOINT_RUN_ID = "changepoint_run_id"


class LoadField:
    """Fields of ``load``: one second of one (transport, mode, client)."""

    REQUESTS = "requests"
    FAILURES = "failures"
    BYTES = "bytes"
    MEAN_MS = "mean_ms"
    P50_MS = "p50_ms"
    P95_MS = "p95_ms"
    P99_MS = "p99_ms"
    MAX_MS = "max_ms"
    USERS = "users"


class LoadResourcesField:
    """Fields of ``load_resources`` (the device's only when its metrics answered)."""

    DEVICE_CPU_CORES = "device_cpu_cores"
    DEVICE_MEMORY_BYTES = "device_memory_bytes"
    GENERATOR_CPU_PERCENT = "generator_cpu_percent"
    GENERATOR_MEMORY_BYTES = "generator_memory_bytes"
    USERS = "users"


class LoadStepField:
    """Fields of ``load_step``: a step's figures over its window (those it has), in the
    order of ``LOAD_STEP_FIGURES``, then ``KNEE``."""

    USERS = "users"
    WINDOW_S = "window_s"
    REQUESTS = "requests"
    FAILURES = "failures"
    OPS_PER_S = "ops_per_s"
    MEAN_MS = "mean_ms"
    P50_MS = "p50_ms"
    P95_MS = "p95_ms"
    P99_MS = "p99_ms"
    MAX_MS = "max_ms"
    DEVICE_CPU_CORES = "device_cpu_cores"
    DEVICE_MEMORY_BYTES = "device_memory_bytes"
    DEVICE_MEMORY_FIRST_BYTES = "device_memory_first_bytes"
    DEVICE_MEMORY_LAST_BYTES = "device_memory_last_bytes"
    DEVICE_MEMORY_PEAK_BYTES = "device_memory_peak_bytes"
    GENERATOR_CPU_PERCENT = "generator_cpu_percent"
    GENERATOR_MEMORY_PEAK_BYTES = "generator_memory_peak_bytes"
    INTERVAL_MS = "interval_ms"
    """gNMI stream steps only: the subscriptions' sample interval."""
    DELIVERED_UPDATES_PER_S = "delivered_updates_per_s"
    EXPECTED_UPDATES_PER_S = "expected_updates_per_s"
    DELIVERED_RATIO = "delivered_ratio"
    BEHIND = "behind"
    DEVICE_GNMI_SUBSCRIPTIONS = "device_gnmi_subscriptions"
    DEVICE_GNMI_UPDATES_PER_S = "device_gnmi_updates_per_s"
    DEVICE_GNMI_DROPPED_SUBSCRIPTIONS = "device_gnmi_dropped_subscriptions"
    KNEE = "knee"


class FleetJobField:
    """Fields of ``fleet_job``: the step's size, its wall time against the model, the
    per-device time with its intervals, what the client and the device spent."""

    DEVICES = "devices"
    WORKERS = "workers"
    WALL_S = "wall_s"
    PREDICTED_WALL_S = "predicted_wall_s"
    PREDICTED_LOW_S = "predicted_low_s"
    PREDICTED_HIGH_S = "predicted_high_s"
    MODEL_ERROR_PCT = "model_error_pct"
    PER_DEVICE_P50_MS = "per_device_p50_ms"
    PER_DEVICE_P50_CI_LOW_MS = "per_device_p50_ci_low_ms"
    PER_DEVICE_P50_CI_HIGH_MS = "per_device_p50_ci_high_ms"
    PER_DEVICE_P95_MS = "per_device_p95_ms"
    PER_DEVICE_P95_CI_LOW_MS = "per_device_p95_ci_low_ms"
    PER_DEVICE_P95_CI_HIGH_MS = "per_device_p95_ci_high_ms"
    CLIENT_CPU_S = "client_cpu_s"
    CLIENT_RSS_PEAK_BYTES = "client_rss_peak_bytes"
    DEVICE_CPU_S = "device_cpu_s"
    DEVICE_MEMORY_PEAK_BYTES = "device_memory_peak_bytes"
    CONFIGURED_RTT_MS = "configured_rtt_ms"
    VERIFIED_RTT_MS = "verified_rtt_ms"
    """The median of the devices' verified RTTs."""
    CLIENT_CORES = "client_cores"
    """The cores the runner's container may use (its CPU set and quota)."""
    CLIENT_UTILISATION = "client_utilisation"
    """client_cpu_s / wall_s / the cores the tool can use (summary.client_utilisation)."""
    MODEL_VERDICT = "model_verdict"
    """``follows``, ``slower``, ``faster``, ``unknown`` (text)."""
    COMMIT = "commit"
    TITLE = "title"
    """``<run id>: <series>, <devices> devices x <workers> workers, <profile>, commit
    <commit>``: the step's annotation on the dashboards."""


class HeldField:
    """Fields of ``held_connections``: the step's size and plan, its setup and operation
    times with their 95 % intervals, its rate, each connection's memory on both sides."""

    CONNECTIONS_HELD = "connections_held"
    """The step's count as a number (the ``connections`` tag is its text, to group by)."""
    SOCKETS = "sockets"
    OPERATIONS_PER_CONNECTION = "operations_per_connection"
    DURATION_S = "duration_s"
    OPEN_CONCURRENCY = "open_concurrency"
    SETUP_WALL_S = "setup_wall_s"
    SETUP_P50_MS = "setup_p50_ms"
    SETUP_P50_CI_LOW_MS = "setup_p50_ci_low_ms"
    SETUP_P50_CI_HIGH_MS = "setup_p50_ci_high_ms"
    SETUP_P95_MS = "setup_p95_ms"
    SETUP_P95_CI_LOW_MS = "setup_p95_ci_low_ms"
    SETUP_P95_CI_HIGH_MS = "setup_p95_ci_high_ms"
    OPERATIONS = "operations"
    OPERATIONS_WINDOW_S = "operations_window_s"
    OPERATIONS_PER_S = "operations_per_s"
    OPERATION_P50_MS = "operation_p50_ms"
    OPERATION_P50_CI_LOW_MS = "operation_p50_ci_low_ms"
    OPERATION_P50_CI_HIGH_MS = "operation_p50_ci_high_ms"
    OPERATION_P95_MS = "operation_p95_ms"
    OPERATION_P95_CI_LOW_MS = "operation_p95_ci_low_ms"
    OPERATION_P95_CI_HIGH_MS = "operation_p95_ci_high_ms"
    CLIENT_MEMORY_PER_CONNECTION_BYTES = "client_memory_per_connection_bytes"
    DEVICE_MEMORY_PER_CONNECTION_BYTES = "device_memory_per_connection_bytes"
    CONFIGURED_RTT_MS = "configured_rtt_ms"
    VERIFIED_RTT_MS = "verified_rtt_ms"


class FleetKneeField:
    """Fields of ``fleet_knee``: the knee's status and, when there is one, its step."""

    STATUS = "status"
    """``knee``, ``not reached``, ``undetermined`` (text; fleet_job/knee.py)."""
    KNEE_WORKERS = "knee_workers"
    WALL_S = "wall_s"
    PREDICTED_HIGH_S = "predicted_high_s"
    CLIENT_UTILISATION = "client_utilisation"
    STEPS = "steps"
    """The sweep's steps of this series, profile and devices count the knee was sought in."""
    REASON = "reason"


LOAD_STEP_FIGURES = (
    LoadStepField.USERS,
    LoadStepField.WINDOW_S,
    LoadStepField.REQUESTS,
    LoadStepField.FAILURES,
    LoadStepField.OPS_PER_S,
    LoadStepField.MEAN_MS,
    LoadStepField.P50_MS,
    LoadStepField.P95_MS,
    LoadStepField.P99_MS,
    LoadStepField.MAX_MS,
    LoadStepField.DEVICE_CPU_CORES,
    LoadStepField.DEVICE_MEMORY_BYTES,
    LoadStepField.DEVICE_MEMORY_FIRST_BYTES,
    LoadStepField.DEVICE_MEMORY_LAST_BYTES,
    LoadStepField.DEVICE_MEMORY_PEAK_BYTES,
    LoadStepField.GENERATOR_CPU_PERCENT,
    LoadStepField.GENERATOR_MEMORY_PEAK_BYTES,
    LoadStepField.INTERVAL_MS,
    LoadStepField.DELIVERED_UPDATES_PER_S,
    LoadStepField.EXPECTED_UPDATES_PER_S,
    LoadStepField.DELIVERED_RATIO,
    LoadStepField.BEHIND,
    LoadStepField.DEVICE_GNMI_SUBSCRIPTIONS,
    LoadStepField.DEVICE_GNMI_UPDATES_PER_S,
    LoadStepField.DEVICE_GNMI_DROPPED_SUBSCRIPTIONS,
)


def parameter_field(name: str) -> str:
    """A numeric parameter as a ``mode_summary`` field too (a chart's axis needs the
    number; the tag is text)."""
    return f"parameter_{name}"


def wire_field(counter: str) -> str:
    """A wire counter of one iteration (wire/model.py's ``FIELDS``)."""
    return f"wire_{counter}"


def wire_p50_field(counter: str) -> str:
    return f"wire_{counter}_p50"


def phase_field(phase: str) -> str:
    """A phase of one iteration, ms (phases.py's ``PHASES``)."""
    return f"phase_{phase}_ms"


def phase_p50_field(phase: str) -> str:
    return f"phase_{phase}_p50_ms"


def time_field(part: str) -> str:
    """A part of one iteration's time split, ms (wire/timeline.py's ``PARTS``)."""
    return f"time_{part}_ms"


def time_p50_field(part: str) -> str:
    return f"time_{part}_p50_ms"


def hop_field(part: str) -> str:
    """A part of one relayed iteration's time by hop, ms (hop_split.py's ``HOP_PARTS``)."""
    return f"hop_{part}_ms"


def hop_p50_field(part: str) -> str:
    return f"hop_{part}_p50_ms"


def _names(namespace: type) -> set[str]:
    return {value for key, value in vars(namespace).items() if key.isupper()}


def field_names(
    measurement: str,
    phases: Iterable[str],
    wire_counters: Iterable[str],
    time_parts: Iterable[str],
    hop_parts: Iterable[str] = (),
) -> frozenset[str]:
    """Every field ``measurement`` may carry, its families spelled out over the runner's
    phases (phases.PHASES), wire counters (wire/model.py's FIELDS), time-split parts
    (wire/timeline.py's PARTS) and hop parts (hop_split.py's HOP_PARTS; none for a reader
    of no relayed mode), which this module cannot import (they are pydantic's)."""
    if measurement == Measurement.ITERATION:
        return frozenset(
            _names(IterationField)
            | {wire_field(counter) for counter in wire_counters}
            | {phase_field(phase) for phase in phases}
            | {time_field(part) for part in time_parts}
            | {hop_field(part) for part in hop_parts}
        )
    if measurement == Measurement.MODE_SUMMARY:
        return frozenset(
            _names(SummaryField)
            | {parameter_field(name) for name in PARAMETER_TAGS}
            | {wire_p50_field(counter) for counter in wire_counters}
            | {phase_p50_field(phase) for phase in phases}
            | {time_p50_field(part) for part in time_parts}
            | {hop_p50_field(part) for part in hop_parts}
        )
    fixed = {
        Measurement.RUN: RunField,
        Measurement.VERDICT: VerdictField,
        Measurement.LOAD: LoadField,
        Measurement.LOAD_RESOURCES: LoadResourcesField,
        Measurement.LOAD_STEP: LoadStepField,
        Measurement.FLEET_JOB: FleetJobField,
        Measurement.FLEET_KNEE: FleetKneeField,
        Measurement.HELD_CONNECTIONS: HeldField,
    }
    if measurement not in fixed:
        raise ValueError(f"no measurement {measurement!r} in the lab's schema")
    return frozenset(_names(fixed[measurement]))


def tag_names() -> frozenset[str]:
    """Every tag key the lab writes."""
    return frozenset(_names(Tag))
