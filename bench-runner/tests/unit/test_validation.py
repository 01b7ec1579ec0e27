import pytest

from bench_runner.validation import (
    IterationError,
    cli_error,
    failure_summary,
    first_line,
    validate_output,
)

INVALID = "show clck\n         ^\n% Invalid input detected at '^' marker.\n"


def test_valid_output_passes() -> None:
    validate_output("show clock", "*11:00:00.000 UTC Sun Nov 22 2026\n")


def test_empty_output_fails_unless_allowed() -> None:
    with pytest.raises(IterationError, match="show clock: empty output"):
        validate_output("show clock", " \r\n")
    validate_output("terminal length 0", "", allow_empty=True)


@pytest.mark.parametrize(
    "output", [INVALID, '% Ambiguous command: "show c"\n', "% Incomplete command.\n"]
)
def test_cli_errors_fail(output: str) -> None:
    with pytest.raises(IterationError, match=r"^show c: % "):
        validate_output("show c", output)


def test_cli_error_finds_the_error_line() -> None:
    assert cli_error(INVALID) == "% Invalid input detected at '^' marker."
    assert cli_error("all good") is None


def test_first_line_skips_blank_lines() -> None:
    assert first_line("\n\n  hello \nworld") == "hello"
    assert first_line("") == ""


def test_failure_summary_prefers_the_cli_error_line() -> None:
    assert failure_summary("output of a good command\n" + INVALID) == (
        "% Invalid input detected at '^' marker."
    )
    assert failure_summary("\n401 Authorization Required\n") == "401 Authorization Required"
