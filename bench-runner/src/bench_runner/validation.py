"""Checks that a command output is a real answer, not an empty or CLI error reply."""

CLI_ERROR_MARKERS = ("% Invalid", "% Ambiguous", "% Incomplete", "% Unknown")


def first_line(text: str) -> str:
    """The first non-blank line, stripped: enough for a short failure reason."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def cli_error(text: str) -> str | None:
    """The CLI error line in ``text``, if the device rejected a command."""
    if "%" not in text:  # every marker has one; a C-speed scan spares the per-line loop
        return None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(CLI_ERROR_MARKERS):
            return stripped
    return None


class IterationError(Exception):
    """An iteration that did not produce valid output; the message is the recorded reason."""


def failure_summary(text: str) -> str:
    """The line that best explains a failed reply: the CLI error, else the first line."""
    return cli_error(text) or first_line(text)


def validate_output(label: str, output: str, *, allow_empty: bool = False) -> None:
    """Raise IterationError when ``output`` (of command ``label``) is empty or an error."""
    if not allow_empty and not output.strip():
        raise IterationError(f"{label}: empty output")
    error = cli_error(output)
    if error is not None:
        raise IterationError(f"{label}: {error}")
