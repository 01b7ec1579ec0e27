import pytest

from netem_ctl.config import Settings, SettingsError, parse_ports


def test_defaults_follow_the_contract():
    settings = Settings.from_env({})
    assert settings.engine == "auto"
    assert settings.ports == (22, 443, 830)
    assert settings.initial_profile == "local"
    assert str(settings.profiles_file) == "/etc/netem/profiles.yaml"
    assert settings.control_port == 8181


def test_environment_overrides():
    settings = Settings.from_env(
        {"NETEM_ENGINE": "NFQ", "NETEM_PORTS": "22, 2222", "NETEM_PROFILE": "geo"}
    )
    assert (settings.engine, settings.ports, settings.initial_profile) == ("nfq", (22, 2222), "geo")


@pytest.mark.parametrize(
    "env",
    [
        {"NETEM_ENGINE": "ebpf"},
        {"NETEM_PORTS": "22,8181"},  # the control port is never impaired
        {"NETEM_PORTS": "22,x"},
        {"NETEM_PORTS": ""},
        {"NETEM_PORTS": "22,22"},
        {"NETEM_PORTS": "70000"},
        {"NETEM_PORTS": ",".join(str(p) for p in range(1, 17))},  # multiport takes at most 15
    ],
)
def test_bad_settings_are_refused(env):
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_parse_ports():
    assert parse_ports("443") == (443,)
