"""Entry point: choose the engine, apply the initial profile, serve the API, clean up on exit."""

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI

from .api import create_app
from .config import Settings, SettingsError
from .controller import Controller, Watchdog
from .engines.base import Engine
from .engines.detect import EngineChoice, NoEngineError, choose_engine
from .engines.nfq import NfqEngine
from .engines.runner import CommandError, CommandRunner
from .engines.tc import TcEngine
from .fleet import FleetAddresses, FleetError
from .link import LinkMonitor
from .profiles import Profile, ProfilesFileError, load_profiles
from .state import StateStore

log = logging.getLogger("netem")


def make_engine(choice: EngineChoice, runner: CommandRunner, settings: Settings) -> Engine:
    if choice.name == "tc":
        return TcEngine(runner, settings.interface, settings.ports)
    return NfqEngine(
        runner, settings.interface, settings.ports, settings.delayer_path, settings.run_dir
    )


def starting_profile(state: StateStore, configured: Profile) -> Profile:
    """The profile this container last applied, else NETEM_PROFILE: a restart keeps the lab's
    current profile."""
    saved = state.load()
    if saved is None:
        return configured
    log.warning(
        "RESTARTED: re-applying the last applied profile %s from %s (not NETEM_PROFILE=%s)",
        saved.name,
        state.path,
        configured.name,
    )
    return saved


def main() -> int:
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        settings = Settings.from_env()
        profiles = load_profiles(settings.profiles_file)
        if settings.initial_profile not in profiles:
            raise SettingsError(
                f"NETEM_PROFILE={settings.initial_profile!r} is not in {settings.profiles_file} "
                f"(known: {', '.join(profiles)})"
            )
        link = LinkMonitor(settings.interface)
        if link.index is None:
            # Restarted before the device's new namespace has its eth0: fail, the restart policy
            # retries.
            raise SettingsError(
                f"interface {settings.interface} does not exist in this network namespace"
            )
        runner = CommandRunner()
        choice = choose_engine(settings.engine, runner, settings.delayer_path)
        fleet = FleetAddresses(runner, settings.interface, settings.fleet)
        fleet.ensure()
    except (SettingsError, ProfilesFileError, NoEngineError, FleetError, CommandError) as exc:
        log.critical("cannot start: %s", exc)
        return 2
    state = StateStore(settings.state_file)
    initial = starting_profile(state, profiles[settings.initial_profile])
    log.info(
        "engine %s (%s); impairing ports %s on %s, control port %d untouched",
        choice.name,
        choice.reason,
        settings.ports,
        settings.interface,
        settings.control_port,
    )

    controller = Controller(make_engine(choice, runner, settings), choice, link, state)
    log.info(
        "netem instance %s (GET /profile reports it; a restart shows a new one)",
        controller.instance,
    )
    server: uvicorn.Server | None = None
    watchdog_failed = False

    def stop_on_watchdog_failure() -> None:
        nonlocal watchdog_failed
        watchdog_failed = True
        if server is not None:
            server.should_exit = True

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Runs before the port serves requests, so /healthz answers only once the profile is in
        # place.
        controller.apply(initial)
        watchdog = Watchdog(controller, settings.watchdog_interval_s, stop_on_watchdog_failure)
        watchdog.start()
        try:
            yield
        finally:
            watchdog.stop()
            controller.shutdown()

    app = create_app(controller, settings.profiles_file, lifespan=lifespan, fleet=fleet)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=settings.listen_host,
            port=settings.control_port,
            log_level="info",
            access_log=False,
            lifespan="on",
        )
    )
    try:
        server.run()
    finally:
        controller.shutdown()  # also when startup failed half-way; clearing twice is harmless
    if watchdog_failed or not server.started:
        log.critical(
            "exiting with failure: %s", "watchdog gave up" if watchdog_failed else "startup failed"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
