"""The prompt-driven dialogue every PTY client of the lab runs, as Netmiko does: wait for
the device's prompt, ``terminal length 0``, ``terminal width 511``, each command with its
echo checked, ``exit``. Pure: the shells feed it what they read."""

import re

from bench_runner.validation import IterationError

PROMPT_PATTERN = re.compile(r"[\w.-]+[#>]\s*$")
TERMINAL_TYPE = "vt100"
TERMINAL_SIZE = (511, 24)
SETUP_COMMANDS = ("terminal length 0", "terminal width 511")
READ_CHUNK = 65536


class PromptReader:
    """Collects a shell's output until it ends in the prompt. Any prompt-looking line ends
    the first reply; from then on only that exact prompt does, so an output line that happens
    to end in '#' or '>' is not taken for it."""

    def __init__(self) -> None:
        self._prompt_at_end: re.Pattern[str] = PROMPT_PATTERN
        self._prompt: str | None = None
        self._text = ""

    def feed(self, chunk: str) -> str | None:
        """The reply once ``chunk`` completes it (then the reader starts afresh); None
        while the prompt has not come. An empty chunk is the end of the session."""
        if not chunk:
            raise IterationError(f"session closed while waiting for prompt: {self._text[-80:]!r}")
        self._text += chunk
        if not self._prompt_at_end.search(self._text):
            return None
        reply, self._text = self._text, ""
        if self._prompt is None:
            match = PROMPT_PATTERN.search(reply)
            assert match is not None  # the pattern matched to get here
            self._prompt = match.group(0).rstrip()
            self._prompt_at_end = re.compile(r"(?:\A|[\r\n])" + re.escape(self._prompt) + r"\s*\Z")
        return reply


def command_output(command: str, reply: str) -> str:
    """A command's output: its reply without the echo line and the prompt; IterationError
    when the device did not echo the command."""
    lines = reply.replace("\r\n", "\n").split("\n")
    if command not in lines[0]:
        raise IterationError(f"{command}: echo not found, got {lines[0].strip()!r}")
    return "\n".join(lines[1:-1])
