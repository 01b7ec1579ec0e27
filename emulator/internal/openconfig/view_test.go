package openconfig

import (
	"testing"
	"time"

	"transportlab/emulator/internal/configdb"
)

// seeded is the view of a freshly seeded device of platform, up an hour.
func seeded(t *testing.T, platform string) Device {
	t.Helper()
	store, err := configdb.Seeded(platform, "lab-r1")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := store.Lines()
	if err != nil {
		t.Fatal(err)
	}
	booted := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return Device{Platform: platform, Hostname: store.Hostname(), Lines: lines, Booted: booted, Now: booted.Add(time.Hour)}
}

// value is the leaf at path text in leaves; ok false if absent.
func value(leaves []Leaf, path string) (any, bool) {
	for _, l := range leaves {
		if l.Path.String() == path {
			return l.Value, true
		}
	}
	return nil, false
}

func TestLeavesOfBothPlatforms(t *testing.T) {
	for _, check := range []struct {
		platform, path string
		want           any
	}{
		{"cisco_iosxe", "/system/config/hostname", "lab-r1"},
		{"cisco_iosxe", "/system/state/software-version", "17.09.04a"},
		{"cisco_iosxe", "/system/state/current-datetime", "2026-01-01T01:00:00Z"},
		{"cisco_iosxe", "/interfaces/interface[name=Loopback0]/config/description", "Router ID"},
		{"cisco_iosxe", "/interfaces/interface[name=Loopback0]/state/type", Identity("iana-if-type:softwareLoopback")},
		{"cisco_iosxe", "/interfaces/interface[name=GigabitEthernet1]/config/mtu", uint16(1500)},
		{"cisco_iosxe", "/interfaces/interface[name=GigabitEthernet1]/subinterfaces/subinterface[index=0]/ipv4/addresses/address[ip=198.18.0.2]/config/prefix-length", uint8(30)},
		{"cisco_iosxe", "/interfaces/interface[name=GigabitEthernet2]/state/last-change", uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())},
		{"arista_eos", "/system/state/software-version", "4.32.2F"},
		{"arista_eos", "/interfaces/interface[name=Ethernet3]/config/enabled", false},
		{"arista_eos", "/interfaces/interface[name=Ethernet3]/state/oper-status", "DOWN"},
		{"arista_eos", "/interfaces/interface[name=Ethernet1]/state/admin-status", "UP"},
		{"arista_eos", "/interfaces/interface[name=Ethernet2]/subinterfaces/subinterface[index=0]/ipv4/addresses/address[ip=198.18.20.2]/state/prefix-length", uint8(24)},
	} {
		got, ok := value(Leaves(seeded(t, check.platform)), check.path)
		if !ok || got != check.want {
			t.Errorf("%s %s = %v (%T), want %v (%T)", check.platform, check.path, got, got, check.want, check.want)
		}
	}
}

func TestCountersGrowWithUptimeAndAreVolatile(t *testing.T) {
	d := seeded(t, "cisco_iosxe")
	const octets = "/interfaces/interface[name=GigabitEthernet1]/state/counters/in-octets"
	early, _ := value(Leaves(d), octets)
	d.Now = d.Now.Add(time.Minute)
	later, _ := value(Leaves(d), octets)
	if later.(uint64) <= early.(uint64) {
		t.Errorf("in-octets %v then %v", early, later)
	}
	for _, l := range Leaves(d) {
		if l.Path.String() == octets && !l.Volatile {
			t.Error("a counter is not volatile")
		}
		if l.Path.String() == "/system/config/hostname" && l.Volatile {
			t.Error("the hostname is volatile")
		}
	}
}

func TestEveryLeafIsInTheSchemaWithItsKind(t *testing.T) {
	for _, platform := range []string{"cisco_iosxe", "arista_eos"} {
		for _, l := range Leaves(seeded(t, platform)) {
			kind, ok := schema[l.Path.Shape()]
			if !ok || kind != l.Kind {
				t.Errorf("%s: schema kind %v (known %v), leaf kind %v", l.Path, kind, ok, l.Kind)
			}
		}
	}
}

func TestInterfacesInRunningConfigOrder(t *testing.T) {
	got := Interfaces(seeded(t, "cisco_iosxe"))
	want := []string{"Loopback0", "GigabitEthernet1", "GigabitEthernet2", "GigabitEthernet3", "VirtualPortGroup0"}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

func TestLastChangeFollowsTheStatus(t *testing.T) {
	d := seeded(t, "arista_eos")
	changed := d.Booted.Add(time.Minute)
	d.LastChange = map[string]time.Time{"Ethernet3": changed}
	got, _ := value(Leaves(d), "/interfaces/interface[name=Ethernet3]/state/last-change")
	if got != uint64(changed.UnixNano()) {
		t.Errorf("last-change %v", got)
	}
}
