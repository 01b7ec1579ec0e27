package engine

import (
	"strings"
	"testing"
)

// TestSessionsOnOtherStoresAreOtherDevices: one engine, two devices' stores;
// each session sees only its own device's hostname and configuration.
func TestSessionsOnOtherStoresAreOtherDevices(t *testing.T) {
	e := newTestEngine(t)
	r2 := NewMemoryStore("lab-r2")
	first, second := e.NewSession(true), e.NewSessionOn(r2, true)
	for _, line := range []string{"configure terminal", "hostname edge-2", "ntp server 198.18.0.2", "end"} {
		if r := second.Execute(line); !r.OK() {
			t.Fatalf("%s: %+v", line, r)
		}
	}
	if p := second.Prompt(); p != "edge-2#" {
		t.Errorf("second device prompt %q", p)
	}
	if p := first.Prompt(); p != "lab-r1#" {
		t.Errorf("first device prompt %q", p)
	}
	if out := second.Execute("show version").Output; !strings.HasPrefix(out, "edge-2 uptime") {
		t.Errorf("second device show version %q", out)
	}
	if out := first.Execute("show running-config").Output; strings.Contains(out, "198.18.0.2") || !strings.Contains(out, "hostname lab-r1") {
		t.Errorf("first device running-config shows the second's:\n%s", out)
	}
	if lines, _ := r2.Lines(); strings.Join(lines, "|") != "ntp server 198.18.0.2" {
		t.Errorf("second store %q", lines)
	}
}
