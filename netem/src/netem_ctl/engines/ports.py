"""The device's impaired ports per transport protocol: what both engines match on."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Ports:
    """TCP ports (SSH, HTTPS, NETCONF) and UDP ports (QUIC); `udp` may be empty."""

    tcp: tuple[int, ...]
    udp: tuple[int, ...]

    def by_protocol(self) -> list[tuple[str, tuple[int, ...]]]:
        """Each protocol that has ports, TCP first: the order of the engines' rules and filters."""
        return [(name, ports) for name, ports in (("tcp", self.tcp), ("udp", self.udp)) if ports]

    def __str__(self) -> str:
        return "; ".join(
            f"{name} {','.join(map(str, ports)) or 'none'}"
            for name, ports in (("tcp", self.tcp), ("udp", self.udp))
        )
