package openconfig

import (
	"encoding/json"
	"testing"
)

func TestJSONOfAnInterface(t *testing.T) {
	d := seeded(t, "cisco_iosxe")
	entry := Path{E("interfaces"), K("interface", "name", "GigabitEthernet1")}
	var leaves []Leaf
	for _, l := range Leaves(d) {
		if entry.Matches(l.Path) {
			leaves = append(leaves, l)
		}
	}
	data, err := JSON(entry, leaves, true)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if doc["openconfig-interfaces:name"] != "GigabitEthernet1" {
		t.Errorf("top-level names are module-qualified: %s", data)
	}
	config := doc["openconfig-interfaces:config"].(map[string]any)
	if config["description"] != "Link to WAN emulator (lab transport under test)" {
		t.Errorf("nested names are not: %v", config)
	}
	counters := doc["openconfig-interfaces:state"].(map[string]any)["counters"].(map[string]any)
	if _, ok := counters["in-octets"].(string); !ok {
		t.Errorf("uint64 is a string in RFC 7951: %v", counters)
	}
	sub := doc["openconfig-interfaces:subinterfaces"].(map[string]any)["subinterface"].([]any)[0].(map[string]any)
	ipv4, ok := sub["openconfig-if-ip:ipv4"].(map[string]any)
	if !ok {
		t.Fatalf("ipv4 is qualified by its augmenting module: %v", sub)
	}
	address := ipv4["addresses"].(map[string]any)["address"].([]any)[0].(map[string]any)
	if address["ip"] != "198.18.0.2" || address["config"].(map[string]any)["prefix-length"] != float64(30) {
		t.Errorf("address %v", address)
	}

	plain, err := JSON(entry, leaves, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(plain, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["name"] != "GigabitEthernet1" {
		t.Errorf("plain JSON names are unqualified: %s", plain)
	}
}

func TestJSONOfALeafIsItsScalar(t *testing.T) {
	p := Path{E("system"), E("config"), E("hostname")}
	data, err := JSON(p, []Leaf{{Path: p, Value: "r1"}}, true)
	if err != nil || string(data) != `"r1"` {
		t.Errorf("%s %v", data, err)
	}
	data, _ = JSON(nil, []Leaf{{Value: uint64(7)}}, false)
	if string(data) != "7" {
		t.Errorf("plain uint64 %s", data)
	}
}

func TestDecodeJSON(t *testing.T) {
	prefix := Path{E("interfaces")}
	writes, err := DecodeJSON(prefix, []byte(`{"openconfig-interfaces:interface":[{"name":"Loopback5",
		"config":{"name":"Loopback5","description":"five","enabled":false},
		"subinterfaces":{"subinterface":[{"index":0,"openconfig-if-ip:ipv4":{"addresses":{"address":[
			{"ip":"10.5.5.5","config":{"ip":"10.5.5.5","prefix-length":32}}]}}}]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, w := range writes {
		got[w.Path.String()] = w.Value
	}
	entry := "/interfaces/interface[name=Loopback5]"
	addr := entry + "/subinterfaces/subinterface[index=0]/ipv4/addresses/address[ip=10.5.5.5]"
	for path, want := range map[string]any{entry + "/config/description": "five", entry + "/config/enabled": false,
		entry + "/name": "Loopback5", addr + "/config/prefix-length": json.Number("32")} {
		if got[path] != want {
			t.Errorf("%s = %v, want %v (all %v)", path, got[path], want, got)
		}
	}
	for _, bad := range []string{`{"a":`, `[1]`, `{"interface":[{"config":{}}]}`, `{"x":null}`, `1 2`, `{"":1}`} {
		if _, err := DecodeJSON(prefix, []byte(bad)); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}
