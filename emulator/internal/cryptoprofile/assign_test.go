package cryptoprofile

import (
	"strings"
	"testing"
)

func names(ps []Profile) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

func TestAssign(t *testing.T) {
	for _, c := range []struct {
		platform, device, fleet string
		size                    int
		want                    string
	}{
		{"cisco_iosxe", "", "", 1, "cisco_iosxe"},
		{"arista_eos", "", "", 2, "arista_eos,arista_eos"},
		{"cisco_iosxe", "modern", "", 2, "modern,modern"},
		{"cisco_iosxe", "", "1:modern,3:arista_eos", 4, "modern,cisco_iosxe,arista_eos,cisco_iosxe"},
		{"arista_eos", "modern", "2-3:cisco_iosxe", 4, "modern,cisco_iosxe,cisco_iosxe,modern"},
		{"cisco_iosxe", "", "1-1:modern", 1, "modern"},
		{"cisco_iosxe", "", "3:modern,1-2:arista_eos", 3, "arista_eos,arista_eos,modern"},
		// A platform without a profile of its own, with one chosen for the device.
		{"juniper_junos", "modern", "", 1, "modern"},
	} {
		got, err := Assign(c.platform, c.size, c.device, c.fleet)
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if names(got) != c.want {
			t.Errorf("%+v: %s, want %s", c, names(got), c.want)
		}
	}
}

func TestAssignRefusesWithAClearError(t *testing.T) {
	for _, c := range []struct {
		platform, device, fleet string
		size                    int
		want                    string
	}{
		{"cisco_iosxe", "fips", "", 1, `DEVICE_CRYPTO_PROFILE: unknown crypto profile "fips" (known: arista_eos, cisco_iosxe, modern)`},
		{"juniper_junos", "", "", 1, `platform "juniper_junos" has no crypto profile of its own`},
		{"cisco_iosxe", "", "1:fips", 2, `item 1 "1:fips": unknown crypto profile "fips"`},
		{"cisco_iosxe", "", "4:modern", 3, `item 1 "4:modern": device 4 is not in the fleet of 3`},
		{"cisco_iosxe", "", "0:modern", 3, `device 0 is not in the fleet of 3`},
		{"cisco_iosxe", "", "1:modern,", 3, `item 2 "": want <device>:<profile>`},
		{"cisco_iosxe", "", "modern", 3, `item 1 "modern": want <device>:<profile>`},
		{"cisco_iosxe", "", "3-2:modern", 3, `range 3-2 runs backwards`},
		{"cisco_iosxe", "", "1-:modern", 3, `"" is not a device number`},
		{"cisco_iosxe", "", "+1:modern", 3, `"+1" is not a device number`},
		{"cisco_iosxe", "", " 1:modern", 3, `" 1" is not a device number`},
		{"cisco_iosxe", "", "1:modern,1-2:arista_eos", 3, `item 2 "1-2:arista_eos": device 1 already has a profile from item 1`},
		{"cisco_iosxe", "", "1:Modern", 3, `unknown crypto profile "Modern"`},
	} {
		_, err := Assign(c.platform, c.size, c.device, c.fleet)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c, err, c.want)
		}
	}
}

// FuzzAssign: any DEVICE_FLEET_CRYPTO either is refused or gives every device of the fleet a
// known profile, the one its item names.
func FuzzAssign(f *testing.F) {
	for _, seed := range []string{"", "1:modern", "1-3:arista_eos,4:modern", "2-1:modern", "1:modern,1:modern", ":", ",,"} {
		f.Add(seed, 4)
	}
	f.Fuzz(func(t *testing.T, spec string, size int) {
		if size < 1 || size > 250 {
			return
		}
		got, err := Assign("cisco_iosxe", size, "", spec)
		if err != nil {
			return
		}
		if len(got) != size {
			t.Fatalf("%q: %d profiles for %d devices", spec, len(got), size)
		}
		for k, p := range got {
			if _, ok := Lookup(p.Name); !ok {
				t.Fatalf("%q: device %d has unknown profile %q", spec, k+1, p.Name)
			}
			if p.Name != "cisco_iosxe" && !strings.Contains(spec, ":"+p.Name) {
				t.Fatalf("%q: device %d has %s, which no item names", spec, k+1, p.Name)
			}
		}
	})
}
