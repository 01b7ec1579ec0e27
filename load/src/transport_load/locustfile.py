"""The locustfile of ``make load``: every transport's user class (pick them by name on
Locust's command line, which the CLI does from TRANSPORT) and the lab's hooks."""

from transport_load import lab  # noqa: F401  (registers the event hooks)
from transport_load.users import (
    GnmiFreshUser,
    GnmiGetUser,
    GnmiStreamUser,
    H3FreshUser,
    H3KeepAliveUser,
    H3ResumedUser,
    HttpsFreshUser,
    HttpsKeepAliveUser,
    Netconf10User,
    Netconf11User,
    RestconfUser,
    SshFreshLibssh2User,
    SshFreshUser,
    SshPtyUser,
    SshReuseLibssh2User,
    SshReuseUser,
)

__all__ = [
    "GnmiFreshUser",
    "GnmiGetUser",
    "GnmiStreamUser",
    "H3FreshUser",
    "H3KeepAliveUser",
    "H3ResumedUser",
    "HttpsFreshUser",
    "HttpsKeepAliveUser",
    "Netconf10User",
    "Netconf11User",
    "RestconfUser",
    "SshFreshLibssh2User",
    "SshFreshUser",
    "SshPtyUser",
    "SshReuseLibssh2User",
    "SshReuseUser",
]
