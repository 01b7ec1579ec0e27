"""The runner's log: what the client libraries log (paramiko, asyncssh, ncclient, scrapli,
netmiko, parallel-ssh, urllib3, httpx, ...) and Python's warnings, on stderr, one line per
record naming its logger. The command line configures it once.

Without it a library's record went to Python's last-resort handler as a bare message with
no logger named (paramiko's ``Socket exception: ...``), or nowhere at all for the libraries
that attach a ``NullHandler`` (netmiko, scrapli, parallel-ssh, urllib3, requests).
"""

import logging
import sys
from enum import StrEnum

FORMAT = "%(levelname)s [%(name)s] %(message)s"
"""``WARNING [paramiko.transport] Socket exception: ...``: the runner's own messages never
start with a level followed by a bracketed logger name."""


class LogLevel(StrEnum):
    """How much of the libraries' logs is shown; WARNING by default, as asyncssh alone logs
    several INFO lines per connection."""

    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"


class _StderrHandler(logging.Handler):
    """Writes to ``sys.stderr`` as it is when a record comes, not as it was when configured:
    rich's live progress display replaces it with a proxy that keeps the bar below the
    lines."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # what logging.Handler.emit implementations do: never raise
            self.handleError(record)


def configure(level: LogLevel = LogLevel.WARNING) -> None:
    """Every logger's records at ``level`` or above to one handler on stderr (a second call
    replaces the first's handler), and ``warnings.warn`` through logging (``py.warnings``),
    the warnings filters unchanged."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(handler)
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    root.setLevel(level.value.upper())
    logging.captureWarnings(True)
