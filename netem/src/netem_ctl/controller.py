"""Owns the active profile: applies it through the engine, reports it, and keeps it in place."""

import logging
import secrets
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from .clock import Clock, iso, utc_now
from .engines.base import Engine
from .engines.detect import EngineChoice
from .history import EventKind, History
from .link import LinkMonitor
from .profiles import CLEARED, Profile
from .state import StateStore

log = logging.getLogger("netem.controller")

# Consecutive failed repairs after which the watchdog gives up and stops the service.
MAX_FAILED_REPAIRS = 3


class Controller:
    """`link` watches the impaired interface; `state` keeps the last applied profile across
    restarts. `instance` is new in every process, so a restarted sidecar is recognisable although
    its generation starts again; every change of what is in effect is a new generation in
    `history`."""

    def __init__(
        self,
        engine: Engine,
        choice: EngineChoice,
        link: LinkMonitor | None = None,
        state: StateStore | None = None,
        clock: Clock = utc_now,
    ):
        self.engine = engine
        self.choice = choice
        self.link = link
        self.state = state
        self.instance = secrets.token_hex(8)
        self._clock = clock
        self.history = History(clock)
        self.profile: Profile | None = None
        self.applied_at: datetime | None = None
        self.repairs = 0
        self._rules_seen_at: datetime | None = (
            None  # by the last apply or watchdog round that found them
        )
        self.ready = False  # true from the first successful apply on
        self._lock = threading.Lock()

    def apply(self, profile: Profile) -> None:
        self._apply(profile, "applied")

    def _apply(self, profile: Profile, event: EventKind) -> None:
        with self._lock:
            log.info(
                "applying profile %s via %s: %s",
                profile.name,
                self.engine.name,
                profile.effective(),
            )
            try:
                self.engine.apply(profile.impairment())
            except Exception:
                # Recorded first: whatever clearing does, the previous profile is no longer in
                # effect.
                failed = self.history.record("failed", profile.name)
                log.exception(
                    "applying profile %s failed; clearing so nothing half-applied stays",
                    profile.name,
                )
                self.engine.clear()
                self.profile, self.applied_at = CLEARED, failed.at
                self._save(CLEARED)
                raise
            self.profile, self.applied_at = profile, self.history.record(event, profile.name).at
            self._rules_seen_at = self.applied_at
            self.ready = True
            self._save(profile)

    def _save(self, profile: Profile) -> None:
        if self.state is None:
            return
        try:
            self.state.save(profile)
        except OSError as exc:  # the profile is applied; only a restart would lose it
            log.error("cannot record profile %s in %s: %s", profile.name, self.state.path, exc)

    def clear(self) -> None:
        self._apply(CLEARED, "cleared")

    def shutdown(self) -> None:
        with self._lock:
            log.info("removing all impairment rules")
            self.engine.clear()

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "instance": self.instance,
                "generation": self.history.generation,
                "engine": self.choice.name,
                "engine_reason": self.choice.reason,
                "profile": self.profile.effective() if self.profile else None,
                "applied_at": iso(self.applied_at) if self.applied_at else None,
                "readback": self.engine.readback(),
            }

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return self.history.events()

    def check_and_repair(self) -> bool:
        """One watchdog round; False (fatal) when the device's network namespace is gone, or once
        repairing has failed MAX_FAILED_REPAIRS times in a row."""
        with self._lock:
            if self.profile is None:
                return True
            link_problem = self.link.problem() if self.link else None
            if link_problem:
                log.critical(
                    "WATCHDOG: %s: the device container restarted or lost its network; this "
                    "sidecar is in a dead network namespace and impairs NOTHING. Exiting so the "
                    "restart policy starts it in the device's new namespace, where it re-applies "
                    "profile %s",
                    link_problem,
                    self.profile.name,
                )
                return False
            impairment = self.profile.impairment()
            problems = self.engine.problems(impairment)
            if not problems:
                self._rules_seen_at = self._clock()
                return True
            log.error(
                "WATCHDOG: profile %s is not in place: %s; re-applying",
                self.profile.name,
                "; ".join(problems),
            )
            self.repairs += 1
            for attempt in range(1, MAX_FAILED_REPAIRS + 1):
                try:
                    self.engine.apply(impairment)
                    if not self.engine.problems(impairment):
                        # A new generation: samples taken while the rules were missing are not the
                        # profile's.
                        self.history.record(
                            "repaired", self.profile.name, since=self._rules_seen_at
                        )
                        log.warning("WATCHDOG: profile %s re-applied", self.profile.name)
                        return True
                except Exception as exc:  # any failure counts as a failed attempt
                    log.error("WATCHDOG: re-apply attempt %d failed: %s", attempt, exc)
            self.history.record("failed", self.profile.name, since=self._rules_seen_at)
            log.critical("WATCHDOG: cannot restore profile %s; stopping", self.profile.name)
            return False


class Watchdog:
    """Runs Controller.check_and_repair every `interval_s`; calls `on_fatal` when it gives up."""

    def __init__(self, controller: Controller, interval_s: float, on_fatal: Callable[[], None]):
        self.controller = controller
        self.interval_s = interval_s
        self.on_fatal = on_fatal
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                healthy = self.controller.check_and_repair()
            except Exception:
                log.exception("WATCHDOG: check failed")
                healthy = False
            if not healthy:
                self.on_fatal()
                return
