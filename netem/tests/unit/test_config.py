import pytest

from netem_ctl.config import Settings, SettingsError, parse_ports
from netem_ctl.engines.ports import Ports


def test_defaults_follow_the_contract():
    settings = Settings.from_env({})
    assert settings.engine == "auto"
    assert settings.ports == Ports(tcp=(22, 443, 830, 9339), udp=(443,))
    assert settings.initial_profile == "local"
    assert str(settings.profiles_file) == "/etc/netem/profiles.yaml"
    assert settings.control_port == 8181


def test_environment_overrides():
    settings = Settings.from_env(
        {"NETEM_ENGINE": "NFQ", "NETEM_PORTS": "22, 2222", "NETEM_PROFILE": "geo"}
    )
    assert (settings.engine, settings.ports.tcp, settings.initial_profile) == (
        "nfq",
        (22, 2222),
        "geo",
    )


def test_udp_ports_are_a_list_of_their_own():
    settings = Settings.from_env({"NETEM_PORTS": "22", "NETEM_UDP_PORTS": "443, 4433"})
    assert settings.ports == Ports(tcp=(22,), udp=(443, 4433))


def test_empty_udp_list_impairs_no_udp():
    assert Settings.from_env({"NETEM_UDP_PORTS": ""}).ports.udp == ()
    assert Settings.from_env({"NETEM_UDP_PORTS": " "}).ports.udp == ()


def test_udp_list_may_hold_the_control_port_number():
    """The control API is TCP only: UDP 8181 does not touch it."""
    assert Settings.from_env({"NETEM_UDP_PORTS": "8181"}).ports.udp == (8181,)


def test_multiport_limit_holds_per_protocol():
    fifteen = ",".join(str(p) for p in range(1, 16))
    settings = Settings.from_env({"NETEM_PORTS": fifteen, "NETEM_UDP_PORTS": fifteen})
    assert len(settings.ports.tcp) == len(settings.ports.udp) == 15


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
        {"NETEM_UDP_PORTS": "443,x"},
        {"NETEM_UDP_PORTS": "443,443"},
        {"NETEM_UDP_PORTS": "0"},
        {"NETEM_UDP_PORTS": ",".join(str(p) for p in range(1, 17))},
    ],
)
def test_bad_settings_are_refused(env):
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_parse_ports():
    assert parse_ports("NETEM_PORTS", "443") == (443,)


def test_parse_ports_names_the_variable():
    with pytest.raises(SettingsError, match="NETEM_UDP_PORTS"):
        parse_ports("NETEM_UDP_PORTS", "quic")
