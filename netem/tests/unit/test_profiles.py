import pytest
from pydantic import ValidationError

from netem_ctl.profiles import Profile, ProfilesFileError, load_profiles

REQUIRED = {
    "local": 0,
    "campus": 2,
    "regional": 30,
    "leo": 45,
    "continental": 70,
    "intercontinental": 150,
    "transpacific": 175,
    "geo": 600,
}


def test_shipped_profiles_have_the_reference_rtts_and_sources(profiles_file):
    profiles = load_profiles(profiles_file)
    assert {name: profiles[name].rtt_ms for name in REQUIRED} == REQUIRED
    for profile in profiles.values():
        assert profile.source, profile.name
        if profile.rtt_ms:
            assert "http" in profile.source, profile.name


def test_shipped_impaired_profiles_cover_loss_jitter_and_measured_links(profiles_file):
    profiles = load_profiles(profiles_file)
    for base, rtt in (("regional", 30), ("continental", 70)):
        for loss in (0.1, 0.5, 1, 2):
            profile = profiles[f"{base}-loss-{loss:g}"]
            assert (profile.rtt_ms, profile.jitter_ms, profile.loss_pct) == (rtt, 0, loss)
    reordering, in_order = profiles["regional-jitter"], profiles["regional-jitter-fifo"]
    assert reordering.jitter_ms == in_order.jitter_ms > 0
    assert (reordering.keep_order, in_order.keep_order) == (False, True)
    assert profiles["leo-starlink"].loss_pct > 0
    assert profiles["lte"].jitter_ms > 0


@pytest.mark.parametrize(
    "fields",
    [
        {"rtt_ms": -1},
        {"rtt_ms": 10, "split": 1.5},
        {"rtt_ms": 10, "jitter_ms": 11},
        {"rtt_ms": 10, "loss_pct": 101},
        {"rtt_ms": 10, "rate_mbit": -2},
        {"rtt_ms": 10, "limit_packets": 0},
        {"rtt_ms": 10, "delay": 5},
        {"rtt_ms": 10, "name": "bad name"},
        {},
    ],
)
def test_invalid_profiles_are_rejected(fields):
    with pytest.raises(ValidationError):
        Profile(**fields)


def test_effective_profile_spells_out_directions():
    effective = Profile(name="x", rtt_ms=30, split=0.2).effective()
    assert effective["directions"]["toward_device"]["delay_us"] == 6000
    assert effective["directions"]["from_device"]["delay_us"] == 24000
    assert effective["directions"]["from_device"]["limit_packets"] == 4000


def test_duplicate_names_and_bad_files_are_refused(tmp_path):
    duplicate = tmp_path / "dup.yaml"
    duplicate.write_text("profiles:\n  - {name: a, rtt_ms: 1}\n  - {name: a, rtt_ms: 2}\n")
    with pytest.raises(ProfilesFileError, match="duplicate"):
        load_profiles(duplicate)
    broken = tmp_path / "broken.yaml"
    broken.write_text("profiles: [\n")
    with pytest.raises(ProfilesFileError):
        load_profiles(broken)
    with pytest.raises(ProfilesFileError):
        load_profiles(tmp_path / "missing.yaml")
