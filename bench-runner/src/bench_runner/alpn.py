"""The ALPN protocol each TLS connection selected, as the client library reports it.

TLS 1.3 sends the server's choice in EncryptedExtensions, which the packet capture cannot
read, so it is taken from the library where the library exposes its connection's TLS object
(``selected_alpn_protocol()`` of Python's ``ssl``): httpx (the response's ``network_stream``),
requests (each urllib3 connection's socket, as it connects) and Python's ssl module. A
session that reports it has an ``alpn`` log (``AlpnReportingSession``); the runner reads it
after the mode.
"""

import weakref
from collections import Counter
from typing import Protocol, runtime_checkable


class SelectsAlpn(Protocol):
    """Python's ``ssl.SSLObject`` and ``ssl.SSLSocket``."""

    def selected_alpn_protocol(self) -> str | None: ...


class AlpnLog:
    """One count per TLS connection of the protocol it selected (None: none selected).
    ``note`` may be called with the same connection for every response on it: only its
    first call counts. Connections are held weakly: the log keeps none alive."""

    def __init__(self) -> None:
        self._seen: weakref.WeakSet[object] = weakref.WeakSet()
        self.selected: Counter[str | None] = Counter()

    def known(self, connection: object) -> bool:
        return connection in self._seen

    def note(self, connection: object, tls: SelectsAlpn | None) -> None:
        """Count ``connection`` (an object that lives as long as it: its stream or
        socket) with what its TLS object ``tls`` selected, once; nothing without TLS."""
        if tls is None or connection in self._seen:
            return
        self._seen.add(connection)
        self.selected[tls.selected_alpn_protocol()] += 1


@runtime_checkable
class AlpnReportingSession(Protocol):
    """A session whose client library reports each TLS connection's ALPN protocol."""

    alpn: AlpnLog
