"""What the Nornir job sends to tell a change: the section of the running-config."""

import pytest

from fleet_tools.nornir_job import REFUSED, section_command


@pytest.mark.parametrize(
    ("parents", "pattern"),
    [
        (("interface GigabitEthernet1",), "^interface GigabitEthernet1$"),
        (("ip access-list extended A_B", "permit ip any any"), r"^ip access-list extended A\_B$"),
        (("interface Port-channel1.100",), r"^interface Port-channel1\.100$"),
    ],
)  # fmt: skip
def test_the_section_is_the_first_parent_exactly(parents: tuple[str, ...], pattern: str) -> None:
    assert section_command(parents) == f"show running-config | section {pattern}"


def test_global_lines_compare_the_whole_running_config() -> None:
    assert section_command(()) == "show running-config"


def test_refusals_are_recognized() -> None:
    assert REFUSED.search("show nonsense\n        ^\n% Invalid input detected at '^' marker.")
    assert REFUSED.search("% Incomplete command.")
    assert not REFUSED.search("Cisco IOS XE Software, Version 17.9.4a")
