package configdb

import (
	"strings"
	"testing"
	"time"
)

// TestStateFollowsTheConfiguration: NETCONF state data is the interfaces
// of the store, so a description or address set as a CLI line is there.
func TestStateFollowsTheConfiguration(t *testing.T) {
	s, err := Seeded("arista_eos", "edge-8")
	if err != nil {
		t.Fatal(err)
	}
	s.SetBootTime(time.Now().Add(-time.Hour))
	mustApply(t, s, "interface Ethernet2", "description set by cli")
	mustApply(t, s, "interface Ethernet2", "ip address 10.9.9.1/24")
	state := s.Datastore().State(nil)
	if len(state) != 1 {
		t.Fatalf("state %v", state)
	}
	doc := state[0].String()
	for _, want := range []string{"<name>Ethernet2</name>", "<ip>10.9.9.1</ip><prefix-length>24</prefix-length>",
		"<name>Ethernet3</name><type", "<discontinuity-time>"} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %s in %s", want, doc)
		}
	}
	if strings.Contains(doc, "<name>Ethernet1</name>") && strings.Contains(doc, "<in-octets>0</in-octets>") &&
		!strings.Contains(doc, "<oper-status>down") {
		t.Errorf("an hour of uptime and no traffic: %s", doc)
	}
}
