"""How close a measured delay must be to the configured one."""

# The lower bound is the behaviour (netem never delivers early); the upper bound only has to
# tell the configured delay from a wrong one (doubled, missing), so it leaves room for the
# scheduling noise of a loaded 2-core machine. How close the engine really is (~0.3 ms) is
# measured by `make bench-netem`, not asserted here.
UNDELAYED_MAX_MS = 10.0


def slack_ms(delay_ms: float) -> float:
    return 3.0 + 0.1 * delay_ms


def assert_delayed(measured: float, delay_ms: float, what: str = "") -> None:
    assert delay_ms <= measured <= delay_ms + slack_ms(delay_ms), (
        f"{what} {measured:.2f} ms, want {delay_ms:g} to {delay_ms + slack_ms(delay_ms):g}"
    )
