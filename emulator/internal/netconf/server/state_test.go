package server

import (
	"fmt"
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// TestGetReturnsStateData: <get> adds the operational state beside
// running, through the same subtree filter; <get-config> never has it.
func TestGetReturnsStateData(t *testing.T) {
	store := newStore()
	reads := 0
	store.SetState(func() []*xmltree.Node {
		reads++
		entry := func(name string) *xmltree.Node {
			return xmltree.Elem("urn:s", "interface", xmltree.Leaf("urn:s", "name", name),
				xmltree.Elem("urn:s", "statistics", xmltree.Leaf("urn:s", "in-octets", fmt.Sprint(reads*100))))
		}
		return []*xmltree.Node{xmltree.Elem("urn:s", "interfaces-state", entry("Gi1"), entry("Gi2"))}
	})
	c := start(t, store, 1, true, rpc.Base11)
	all := c.call("1", "<get/>").Child("data")
	if all.Child("native") == nil || len(all.Child("interfaces-state").Children) != 2 {
		t.Fatalf("get: %s", all)
	}
	filtered := c.call("2", `<get><filter type="subtree"><interfaces-state xmlns="urn:s"><interface><name>Gi2</name>`+
		`</interface></interfaces-state></filter></get>`).Child("data")
	if got := filtered.String(); !strings.Contains(got, `<interfaces-state xmlns="urn:s"><interface><name>Gi2</name><statistics><in-octets>200</in-octets>`) ||
		filtered.Child("native") != nil || strings.Contains(got, "Gi1") {
		t.Fatalf("filtered get: %s", got)
	}
	config := c.call("3", "<get-config><source><running/></source></get-config>").Child("data")
	if config.Child("native") == nil || config.Child("interfaces-state") != nil {
		t.Fatalf("get-config: %s", config)
	}
	if onlyConfig := c.call("4", `<get><filter><native xmlns="urn:n"/></filter></get>`).Child("data"); onlyConfig.Child("interfaces-state") != nil {
		t.Fatalf("a configuration filter selected state: %s", onlyConfig)
	}
}
