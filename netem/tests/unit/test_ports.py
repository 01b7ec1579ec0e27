from netem_ctl.engines.ports import Ports


def test_protocols_without_ports_are_left_out():
    assert Ports(tcp=(22, 443), udp=(443,)).by_protocol() == [("tcp", (22, 443)), ("udp", (443,))]
    assert Ports(tcp=(22,), udp=()).by_protocol() == [("tcp", (22,))]


def test_text_names_both_lists():
    assert str(Ports(tcp=(22, 443), udp=(443,))) == "tcp 22,443; udp 443"
    assert str(Ports(tcp=(22,), udp=())) == "tcp 22; udp none"
