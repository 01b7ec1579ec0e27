package openconfig

import (
	"encoding/json"
	"strings"
	"testing"

	"transportlab/emulator/internal/configdb"
)

func entry(name string) Path { return Path{E("interfaces"), K("interface", "name", name)} }

func addressPath(name, ip string) Path {
	return entry(name).Child(E("subinterfaces")).Child(K("subinterface", "index", "0")).Child(E("ipv4")).
		Child(E("addresses")).Child(K("address", "ip", ip))
}

func texts(lines []configdb.Line) string {
	var out []string
	for _, l := range lines {
		if l.Block != "" {
			out = append(out, l.Block+": "+l.Text)
		} else {
			out = append(out, l.Text)
		}
	}
	return strings.Join(out, "\n")
}

func TestLinesOfUpdates(t *testing.T) {
	for _, check := range []struct {
		platform string
		writes   []Write
		want     string
	}{
		{"cisco_iosxe", []Write{{entry("GigabitEthernet2").Child(E("config")).Child(E("description")), "uplink"}},
			"interface GigabitEthernet2: description uplink"},
		{"cisco_iosxe", []Write{{entry("GigabitEthernet2").Child(E("config")).Child(E("enabled")), false}},
			"interface GigabitEthernet2: shutdown"},
		{"cisco_iosxe", []Write{{entry("Loopback7").Child(E("config")).Child(E("description")), "new"}},
			"interface Loopback7\ninterface Loopback7: description new"},
		{"cisco_iosxe", []Write{{Path{E("system"), E("config"), E("hostname")}, "edge"}}, "hostname edge"},
		{"cisco_iosxe", []Write{{addressPath("GigabitEthernet2", "10.1.1.1").Child(E("config")).Child(E("prefix-length")), json.Number("24")}},
			"interface GigabitEthernet2: ip address 10.1.1.1 255.255.255.0"},
		{"arista_eos", []Write{{addressPath("Ethernet2", "10.1.1.1").Child(E("config")).Child(E("prefix-length")), json.Number("24")}},
			"interface Ethernet2: ip address 10.1.1.1/24"},
		// The prefix length stays when only the ip is written again.
		{"arista_eos", []Write{{addressPath("Ethernet2", "198.18.20.2").Child(E("config")).Child(E("ip")), "198.18.20.2"}},
			"interface Ethernet2: ip address 198.18.20.2/24"},
		{"cisco_iosxe", []Write{{entry("GigabitEthernet2").Child(E("config")).Child(E("description")), ""}},
			"interface GigabitEthernet2: no description"},
	} {
		lines, err := Lines(seeded(t, check.platform), Change{Update: [][]Write{check.writes}})
		if err != nil {
			t.Errorf("%s %v: %v", check.platform, check.writes, err)
			continue
		}
		if got := texts(lines); got != check.want {
			t.Errorf("%s %v:\n%s\nwant\n%s", check.platform, check.writes, got, check.want)
		}
	}
}

func TestLinesOfDeletesAndReplaces(t *testing.T) {
	d := seeded(t, "cisco_iosxe")
	lines, err := Lines(d, Change{
		Delete: []Path{entry("GigabitEthernet3"), entry("Loopback9"), addressPath("Loopback0", "198.19.255.1"),
			entry("GigabitEthernet1").Child(E("config")).Child(E("enabled"))},
		Replace: []Replacement{{Path: entry("GigabitEthernet2").Child(E("config")),
			Leaves: []Write{{entry("GigabitEthernet2").Child(E("config")).Child(E("description")), "replaced"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "no interface GigabitEthernet3\ninterface Loopback0: no ip address\ninterface GigabitEthernet1: no shutdown\n" +
		"interface GigabitEthernet2: no description\ninterface GigabitEthernet2: no shutdown\n" +
		"interface GigabitEthernet2: description replaced"
	if got := texts(lines); got != want {
		t.Errorf("\n%s\nwant\n%s", got, want)
	}
}

func TestLinesRefusals(t *testing.T) {
	d := seeded(t, "cisco_iosxe")
	desc := entry("GigabitEthernet2").Child(E("config")).Child(E("description"))
	for _, check := range []struct {
		name   string
		change Change
		want   Code
	}{
		{"state leaf", Change{Update: [][]Write{{{entry("GigabitEthernet2").Child(E("state")).Child(E("description")), "x"}}}}, InvalidArgument},
		{"unknown leaf", Change{Update: [][]Write{{{entry("GigabitEthernet2").Child(E("config")).Child(E("speed")), "x"}}}}, NotFound},
		{"wildcard", Change{Update: [][]Write{{{Path{E("interfaces"), K("interface", "name", "*"), E("config"), E("description")}, "x"}}}}, InvalidArgument},
		{"abbreviated name", Change{Update: [][]Write{{{entry("Gi2").Child(E("config")).Child(E("description")), "x"}}}}, InvalidArgument},
		{"control character", Change{Update: [][]Write{{{desc, "a\x00b"}}}}, InvalidArgument},
		{"number as description", Change{Update: [][]Write{{{desc, json.Number("1")}}}}, InvalidArgument},
		{"two-word hostname", Change{Update: [][]Write{{{Path{E("system"), E("config"), E("hostname")}, "a b"}}}}, InvalidArgument},
		{"subinterface 1", Change{Update: [][]Write{{{entry("GigabitEthernet2").Child(E("subinterfaces")).Child(K("subinterface", "index", "1")).Child(E("index")), json.Number("1")}}}}, InvalidArgument},
		{"address without prefix", Change{Update: [][]Write{{{addressPath("GigabitEthernet2", "10.9.9.9").Child(E("config")).Child(E("ip")), "10.9.9.9"}}}}, InvalidArgument},
		{"prefix too long", Change{Update: [][]Write{{{addressPath("GigabitEthernet2", "10.9.9.9").Child(E("config")).Child(E("prefix-length")), json.Number("33")}}}}, InvalidArgument},
		{"not IPv4", Change{Update: [][]Write{{{addressPath("GigabitEthernet2", "fe80::1").Child(E("config")).Child(E("prefix-length")), json.Number("64")}}}}, InvalidArgument},
		{"other MTU", Change{Update: [][]Write{{{entry("GigabitEthernet2").Child(E("config")).Child(E("mtu")), json.Number("9000")}}}}, InvalidArgument},
		{"delete hostname", Change{Delete: []Path{{E("system"), E("config"), E("hostname")}}}, InvalidArgument},
		{"delete every interface", Change{Delete: []Path{{E("interfaces")}}}, InvalidArgument},
		{"replace without hostname", Change{Replace: []Replacement{{Path: Path{E("system")}}}}, InvalidArgument},
		{"replace the root", Change{Replace: []Replacement{{Path: Path{}}}}, InvalidArgument},
	} {
		_, err := Lines(d, check.change)
		e, ok := err.(*Error)
		if !ok || e.Code != check.want {
			t.Errorf("%s: %v, want code %d", check.name, err, check.want)
		}
	}
}
