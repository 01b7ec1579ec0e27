package targets

import (
	"strings"
	"testing"
)

func TestAllows(t *testing.T) {
	l, err := Parse(" device , 198.18.100.128/25,10.0.0.7, Core-1.lab ")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"device":         true,
		"DEVICE":         true, // DNS names are case-insensitive
		"core-1.lab":     true,
		"198.18.100.128": true,
		"198.18.100.255": true,
		"10.0.0.7":       true,
		"198.18.100.127": false,
		"198.18.101.130": false,
		"10.0.0.8":       false,
		"device2":        false,
		"evil.device":    false,
		"device.":        false,
		"127.0.0.1":      false,
		"localhost":      false,
		"":               false,
	}
	for device, want := range cases {
		if got := l.Allows(device); got != want {
			t.Errorf("Allows(%q) = %v, want %v", device, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{"", " , ", "10.0.0.0/33", "2001:db8::/32", "::1", "bad_name", "-x", "a..b", "10.0.0.0/8/1"} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): no error", s)
		}
	}
}

func TestIsHostName(t *testing.T) {
	valid := []string{"device", "a", "r1.site-2.example", strings.Repeat("a", 63)}
	invalid := []string{"", "a.", ".a", "a-", "-a", "a_b", "a b", "a:22", strings.Repeat("a", 64), "[::1]"}
	for _, s := range valid {
		if !IsHostName(s) {
			t.Errorf("IsHostName(%q) = false", s)
		}
	}
	for _, s := range invalid {
		if IsHostName(s) {
			t.Errorf("IsHostName(%q) = true", s)
		}
	}
}
