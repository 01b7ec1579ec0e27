"""Engine choice: what NETEM_ENGINE requested is kept beside what was chosen, so Prometheus
can tell a fallback from a choice."""

import subprocess
from collections.abc import Sequence

import pytest

from netem_ctl.engines.detect import NoEngineError, choose_engine
from netem_ctl.engines.runner import CommandError


class ScriptedRunner:
    """Fails every command whose argv contains one of ``failing``; records the rest."""

    def __init__(self, *failing: str):
        self.failing = failing

    def run(self, argv: Sequence[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        if check and any(word in argv for word in self.failing):
            raise CommandError(argv, 2, "Specified qdisc kind is unknown.")
        return subprocess.CompletedProcess(list(argv), 0, "", "")


@pytest.fixture
def delayer(tmp_path):
    path = tmp_path / "nfq-delayer"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_auto_falls_back_to_nfq_and_says_it_was_auto(delayer):
    choice = choose_engine("auto", ScriptedRunner("netem"), delayer)
    assert (choice.name, choice.requested) == ("nfq", "auto")
    assert "kernel has no sch_netem" in choice.reason


def test_auto_prefers_tc(delayer):
    choice = choose_engine("auto", ScriptedRunner(), delayer)
    assert (choice.name, choice.requested) == ("tc", "auto")


@pytest.mark.parametrize("requested", ["tc", "nfq"])
def test_an_explicit_request_is_recorded(requested, delayer):
    choice = choose_engine(requested, ScriptedRunner(), delayer)
    assert (choice.name, choice.requested) == (requested, requested)


def test_an_explicit_request_that_cannot_be_met_is_refused(delayer):
    with pytest.raises(NoEngineError, match="NETEM_ENGINE=tc but kernel has no sch_netem"):
        choose_engine("tc", ScriptedRunner("netem"), delayer)
