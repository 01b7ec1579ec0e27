"""The round-trip model of a latency sweep (pure): what a measurement would cost if the
added latency only added round trips.

``predicted_p50_ms = local_p50_ms + round_trips x added_rtt_ms``, where the reference is
the same series (mode, client and version, parameters, commands) measured at ``local`` in
the same sweep, ``round_trips`` is the p50 counted on the wire at this profile (the mode's
expected round trips when the wire was not counted), and ``added_rtt_ms`` is the delay
netem adds on the mode's port (verified RTT minus the unimpaired reference port's). A p50
above the prediction is time that is not round trips: TCP waiting on itself, CPU of the
client or the device, bandwidth.
"""

from typing import Literal

from pydantic import BaseModel

RoundTripSource = Literal["wire", "expected"]


class RttModel(BaseModel):
    """``modes[].rtt_model`` in results.json."""

    local_run_id: str
    """The run of the sweep at ``local`` the reference p50 comes from."""
    local_p50_ms: float
    round_trips: float
    round_trips_source: RoundTripSource
    added_rtt_ms: float
    predicted_p50_ms: float


def predict(
    local_run_id: str,
    local_p50_ms: float,
    round_trips: float,
    round_trips_source: RoundTripSource,
    added_rtt_ms: float,
) -> RttModel:
    # A negative added RTT is probe noise at `local`: no delay was added.
    added = max(added_rtt_ms, 0.0)
    return RttModel(
        local_run_id=local_run_id,
        local_p50_ms=local_p50_ms,
        round_trips=round_trips,
        round_trips_source=round_trips_source,
        added_rtt_ms=added,
        predicted_p50_ms=local_p50_ms + round_trips * added,
    )
