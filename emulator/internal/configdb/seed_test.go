package configdb

import (
	"strings"
	"testing"

	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/netconf/datastore"
)

func TestEveryPlatformHasASeed(t *testing.T) {
	for _, platform := range engine.Platforms {
		s, err := Seeded(platform, "edge-7")
		if err != nil {
			t.Fatalf("%s: %v", platform, err)
		}
		running := runningXML(t, s.Datastore())
		if !strings.HasPrefix(running, `<native xmlns="`+NativeNS+`"><version>17.9</version><hostname>edge-7</hostname>`) {
			t.Errorf("%s running: %s", platform, running)
		}
		candidate, _ := s.Datastore().Get(datastore.Candidate, nil)
		if candidate[0].String() != running {
			t.Errorf("%s: the candidate must start as running: %s", platform, candidate[0])
		}
	}
	if _, err := Seeded("junos", "edge-7"); err == nil {
		t.Error("platform without a seed accepted")
	}
}

func TestIOSXESeed(t *testing.T) {
	s, err := Seeded("cisco_iosxe", "edge-7")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := s.Lines()
	if err != nil {
		t.Fatal(err)
	}
	mop := " no mop enabled\n no mop sysid\n!\n"
	want := "interface Loopback0\n description Router ID\n ip address 198.19.255.1 255.255.255.255\n!\n" +
		"interface GigabitEthernet1\n description Link to WAN emulator (lab transport under test)\n" +
		" ip address 198.18.0.2 255.255.255.252\n negotiation auto\n" + mop +
		"interface GigabitEthernet2\n description Lab LAN A\n ip address 198.18.10.1 255.255.255.0\n negotiation auto\n" + mop +
		"interface GigabitEthernet3\n description Lab LAN B\n ip address 198.18.20.1 255.255.255.0\n negotiation auto\n" + mop +
		"interface VirtualPortGroup0\n ip address 198.19.35.1 255.255.255.0\n" + mop
	if got := strings.Join(lines, "\n") + "\n"; got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	// Mapped lines are in the tree, where NETCONF and RESTCONF see them.
	if running := runningXML(t, s.Datastore()); !strings.Contains(running, `<GigabitEthernet><name>2</name><description>Lab LAN A</description>`+
		`<ip><address><primary><address>198.18.10.1</address><mask>255.255.255.0</mask></primary></address></ip></GigabitEthernet>`) {
		t.Errorf("running: %s", running)
	}
}

func TestAristaSeed(t *testing.T) {
	s, err := Seeded("arista_eos", "edge-8")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := s.Lines()
	if err != nil {
		t.Fatal(err)
	}
	want := "interface Ethernet1\n description uplink to core\n ip address 198.18.10.2/24\n no switchport\n!\n" +
		"interface Ethernet2\n description lab access\n ip address 198.18.20.2/24\n no switchport\n!\n" +
		"interface Ethernet3\n shutdown\n!\ninterface Loopback0\n ip address 198.19.255.2/32\n!\n" +
		"interface Management1\n ip address 198.18.100.12/24\n!\n"
	if got := strings.Join(lines, "\n") + "\n"; got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestMalformedSeed(t *testing.T) {
	s, _ := newStore(t)
	if err := s.applyConfig("! comment\n description orphan\n"); err == nil || !strings.HasPrefix(err.Error(), "2: ") {
		t.Errorf("indented line outside a block: %v", err)
	}
	if err := s.applyConfig("interface Gi4\n no mop enabled\n"); err != nil {
		t.Fatal(err)
	}
	if lines, _ := s.Lines(); strings.Join(lines, "\n") != "interface GigabitEthernet4\n no mop enabled\n!" {
		t.Errorf("lines %q", lines)
	}
}
