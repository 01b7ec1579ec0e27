"""The interface every engine implements."""

from abc import ABC, abstractmethod

from ..impairment import Impairment


class Engine(ABC):
    name: str

    @abstractmethod
    def apply(self, impairment: Impairment) -> None:
        """Make `impairment` effective; a neutral impairment removes everything."""

    @abstractmethod
    def clear(self) -> None:
        """Remove every rule, qdisc and process the engine created; safe to call twice."""

    @abstractmethod
    def problems(self, impairment: Impairment) -> list[str]:
        """What is missing compared with `impairment` being applied; empty when healthy."""

    @abstractmethod
    def readback(self) -> dict[str, str]:
        """The kernel's view of what is installed, as text: keys "tc" and "iptables"."""

    def counters(self) -> dict[str, dict[str, int]]:
        """Per-direction packet counters, where the engine keeps any."""
        return {}
