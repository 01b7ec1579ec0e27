package fleet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestAddressesMapToDevices(t *testing.T) {
	p, err := New("lab-r1", 100, "198.18.100.128/25")
	if err != nil {
		t.Fatal(err)
	}
	if p.Size() != 100 {
		t.Fatalf("size %d", p.Size())
	}
	for addr, want := range map[string]int{
		"198.18.100.129":        1,
		"198.18.100.130":        2,
		"198.18.100.228":        100,
		"198.18.100.229":        1, // in the block, beyond the fleet
		"198.18.100.128":        1, // the block's network address
		"198.18.100.255":        1, // its broadcast address
		"198.18.100.5":          1, // the container's own address
		"127.0.0.1":             1,
		"::1":                   1,
		"::ffff:198.18.100.131": 3, // IPv4 on a dual-stack socket
	} {
		if got := p.ForAddress(netip.MustParseAddr(addr)); got.Index != want {
			t.Errorf("%s: device %d, want %d", addr, got.Index, want)
		}
	}
	d := p.ForAddressText("198.18.100.131")
	if d.Index != 3 || d.Name != "lab-r3" || d.Address.String() != "198.18.100.131" {
		t.Errorf("device 3: %+v", d)
	}
	if got := p.ForAddressText("not an address"); got.Index != 1 {
		t.Errorf("garbage: device %d", got.Index)
	}
	if got := p.ForAddressText(""); got.Index != 1 {
		t.Errorf("empty: device %d", got.Index)
	}
	if d, ok := p.Device(100); !ok || d.Name != "lab-r100" || d.Address.String() != "198.18.100.228" {
		t.Errorf("device 100: %+v %v", d, ok)
	}
	for _, k := range []int{0, 101, -1} {
		if _, ok := p.Device(k); ok {
			t.Errorf("device %d exists", k)
		}
	}
}

func TestSingleDeviceWithoutBlockAnswersEverywhere(t *testing.T) {
	p, err := New("lab-r1", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"198.18.100.129", "127.0.0.1", "10.1.2.3"} {
		if d := p.ForAddressText(addr); d.Index != 1 || d.Name != "lab-r1" || d.Address.IsValid() {
			t.Errorf("%s: %+v", addr, d)
		}
	}
}

func TestLoopbackBlockGivesDistinctDevices(t *testing.T) {
	p, err := New("edge", 14, "127.0.0.16/28")
	if err != nil {
		t.Fatal(err)
	}
	last := p.Devices()[13]
	if last.Address.String() != "127.0.0.30" || last.Name != "edge-14" {
		t.Errorf("last device %+v", last)
	}
}

func TestNewRejectsBadPlans(t *testing.T) {
	for _, c := range []struct {
		size  int
		block string
		want  string
	}{
		{0, "", "1..250"},
		{251, "198.18.0.0/16", "1..250"},
		{2, "", "needs an address block"},
		{2, "198.18.100.128", "IPv4 CIDR block"},
		{2, "2001:db8::/64", "IPv4 CIDR block"},
		{2, "198.18.100.300/25", "IPv4 CIDR block"},
		{2, "198.18.100.130/25", "network address (198.18.100.128/25)"},
		{127, "198.18.100.128/25", "hold 126 devices"},
		{15, "127.0.0.16/28", "hold 14 devices"},
		{1, "198.18.100.1/32", "hold 0 devices"},
		{1, "198.18.100.0/31", "hold 0 devices"},
		{1, "198.18.100.1/32x", "IPv4 CIDR block"},
	} {
		if _, err := New("lab-r1", c.size, c.block); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("size %d block %q: %v, want an error with %q", c.size, c.block, err, c.want)
		}
	}
	if _, err := New("lab-r1", 126, "198.18.100.128/25"); err != nil {
		t.Errorf("a full block: %v", err)
	}
	if _, err := New("lab-r1", 1, "198.18.100.128/25"); err != nil {
		t.Errorf("one device with a block: %v", err)
	}
}

func TestHostnames(t *testing.T) {
	for _, c := range []struct {
		first string
		size  int
		want  []string
	}{
		{"lab-r1", 3, []string{"lab-r1", "lab-r2", "lab-r3"}},
		{"lab-r7", 2, []string{"lab-r7", "lab-r8"}},
		{"sw08", 3, []string{"sw08", "sw09", "sw10"}},
		{"sw9", 2, []string{"sw9", "sw10"}},
		{"core", 3, []string{"core", "core-2", "core-3"}},
		{"42", 2, []string{"42", "43"}},
		{"r99999999999999999999999", 1, []string{"r99999999999999999999999"}},
	} {
		got, err := Hostnames(c.first, c.size)
		if err != nil || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s x%d: %q %v, want %q", c.first, c.size, got, err, c.want)
		}
	}
	long := strings.Repeat("a", 62) + "9"
	if _, err := Hostnames(long, 2); err == nil || !strings.Contains(err.Error(), "longer than 63") {
		t.Errorf("64-character second name: %v", err)
	}
	if names, err := Hostnames(strings.Repeat("a", 63), 1); err != nil || len(names) != 1 {
		t.Errorf("63 characters, one device: %v", err)
	}
	if _, err := Hostnames(strings.Repeat("a", 62), 2); err == nil {
		t.Error("65-character name with -2 accepted")
	}
	if _, err := Hostnames("r99999999999999999999999", 2); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("huge number: %v", err)
	}
}
