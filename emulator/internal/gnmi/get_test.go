package gnmi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestCapabilities(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	caps, err := f.client(t, 1).Capabilities(ctx(t, account.Password), &gpb.CapabilityRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if caps.GetGNMIVersion() != "0.10.0" {
		t.Errorf("gNMI version %q, want 0.10.0 (openconfig/gnmi v0.14.1's)", caps.GetGNMIVersion())
	}
	var models []string
	for _, m := range caps.GetSupportedModels() {
		if m.GetVersion() == "" {
			t.Errorf("model %s has no version", m.GetName())
		}
		models = append(models, m.GetName())
	}
	if got := strings.Join(models, ","); !strings.Contains(got, "openconfig-interfaces") || !strings.Contains(got, "openconfig-system") {
		t.Errorf("models %s", got)
	}
	if len(caps.GetSupportedEncodings()) != 3 {
		t.Errorf("encodings %v", caps.GetSupportedEncodings())
	}
}

func TestBadCredentialsAreUnauthenticated(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	if _, err := c.Capabilities(ctx(t, "wrong"), &gpb.CapabilityRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("Capabilities with a wrong password: %v", err)
	}
	if _, err := c.Get(ctx(t, ""), &gpb.GetRequest{Path: []*gpb.Path{path(t, "/system")}}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("Get without password: %v", err)
	}
	sub, err := c.Subscribe(ctx(t, "wrong"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); status.Code(err) != codes.Unauthenticated {
		t.Errorf("Subscribe with a wrong password: %v", err)
	}
	if n := f.rec.read(func() int { return f.rec.authFailures }); n != 3 {
		t.Errorf("%d auth failures counted, want 3", n)
	}
}

// get runs a Get and fails the test on error.
func get(t *testing.T, c gpb.GNMIClient, req *gpb.GetRequest) *gpb.GetResponse {
	t.Helper()
	resp, err := c.Get(ctx(t, account.Password), req)
	if err != nil {
		t.Fatalf("Get %v: %v", req, err)
	}
	return resp
}

func TestGetInterfaceConfigJSONIETF(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	resp := get(t, f.client(t, 1), &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=GigabitEthernet2]/config")},
		Type: gpb.GetRequest_CONFIG, Encoding: gpb.Encoding_JSON_IETF})
	if len(resp.GetNotification()) != 1 || len(resp.GetNotification()[0].GetUpdate()) != 1 {
		t.Fatalf("response %v", resp)
	}
	n := resp.GetNotification()[0]
	if n.GetTimestamp() <= 0 {
		t.Errorf("timestamp %d", n.GetTimestamp())
	}
	var config map[string]any
	if err := json.Unmarshal(n.GetUpdate()[0].GetVal().GetJsonIetfVal(), &config); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"openconfig-interfaces:name": "GigabitEthernet2", "openconfig-interfaces:description": "Lab LAN A",
		"openconfig-interfaces:enabled": true, "openconfig-interfaces:type": "iana-if-type:ethernetCsmacd",
		"openconfig-interfaces:mtu": float64(1500)}
	for k, v := range want {
		if config[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, config[k], v, config)
		}
	}
}

func TestGetInterfacesInRunningConfigOrder(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	resp := get(t, f.client(t, 1), &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface/name")},
		Encoding: gpb.Encoding_PROTO})
	var names []string
	for _, u := range resp.GetNotification()[0].GetUpdate() {
		names = append(names, u.GetVal().GetStringVal())
	}
	if got := strings.Join(names, ","); got != "Loopback0,GigabitEthernet1,GigabitEthernet2,GigabitEthernet3,VirtualPortGroup0" {
		t.Errorf("interfaces %s", got)
	}
}

func TestGetManyPathsAndEncodings(t *testing.T) {
	f := startFleet(t, "arista_eos", 1)
	c := f.client(t, 1)
	resp := get(t, c, &gpb.GetRequest{Path: []*gpb.Path{path(t, "/system/config/hostname"),
		path(t, "/interfaces/interface[name=Ethernet3]/state/oper-status"),
		path(t, "/interfaces/interface[name=Ethernet1]/state/counters/in-octets")}, Encoding: gpb.Encoding_PROTO})
	if len(resp.GetNotification()) != 3 {
		t.Fatalf("%d notifications for 3 paths", len(resp.GetNotification()))
	}
	if v := resp.GetNotification()[0].GetUpdate()[0].GetVal().GetStringVal(); v != "lab-r1" {
		t.Errorf("hostname %q", v)
	}
	if v := resp.GetNotification()[1].GetUpdate()[0].GetVal().GetStringVal(); v != "DOWN" {
		t.Errorf("Ethernet3 (shutdown) oper-status %q", v)
	}
	if _, ok := resp.GetNotification()[2].GetUpdate()[0].GetVal().GetValue().(*gpb.TypedValue_UintVal); !ok {
		t.Errorf("in-octets as PROTO: %v", resp.GetNotification()[2].GetUpdate()[0].GetVal())
	}
	// JSON (not IETF): names unqualified, 64-bit counters as numbers.
	resp = get(t, c, &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=Ethernet1]/state/counters")},
		Encoding: gpb.Encoding_JSON})
	var counters map[string]any
	if err := json.Unmarshal(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonVal(), &counters); err != nil {
		t.Fatal(err)
	}
	if _, ok := counters["in-octets"].(float64); !ok {
		t.Errorf("JSON counters %v", counters)
	}
	// JSON_IETF: RFC 7951 puts 64-bit numbers in strings.
	resp = get(t, c, &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=Ethernet1]/state/counters")},
		Encoding: gpb.Encoding_JSON_IETF})
	if err := json.Unmarshal(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal(), &counters); err != nil {
		t.Fatal(err)
	}
	if _, ok := counters["openconfig-interfaces:in-octets"].(string); !ok {
		t.Errorf("JSON_IETF counters %v", counters)
	}
}

func TestGetDataTypes(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	leaves := func(typ gpb.GetRequest_DataType) map[string]bool {
		resp := get(t, c, &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=Loopback0]")},
			Type: typ, Encoding: gpb.Encoding_PROTO})
		out := map[string]bool{}
		for _, u := range resp.GetNotification()[0].GetUpdate() {
			var names []string
			for _, e := range u.GetPath().GetElem() {
				names = append(names, e.GetName())
			}
			out[strings.Join(names, "/")] = true
		}
		return out
	}
	config, state, operational := leaves(gpb.GetRequest_CONFIG), leaves(gpb.GetRequest_STATE), leaves(gpb.GetRequest_OPERATIONAL)
	all := leaves(gpb.GetRequest_ALL)
	for _, check := range []struct {
		set  map[string]bool
		leaf string
		want bool
	}{
		{config, "interfaces/interface/config/description", true},
		{config, "interfaces/interface/state/description", false},
		{config, "interfaces/interface/name", true},
		{state, "interfaces/interface/state/description", true},
		{state, "interfaces/interface/state/counters/in-octets", true},
		{state, "interfaces/interface/config/description", false},
		{operational, "interfaces/interface/state/oper-status", true},
		{operational, "interfaces/interface/state/description", false},
		{all, "interfaces/interface/config/description", true},
		{all, "interfaces/interface/state/oper-status", true},
	} {
		if check.set[check.leaf] != check.want {
			t.Errorf("%s present: %v, want %v", check.leaf, check.set[check.leaf], check.want)
		}
	}
}

func TestGetRefusals(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	for _, check := range []struct {
		name string
		req  *gpb.GetRequest
		want codes.Code
	}{
		{"unknown path", &gpb.GetRequest{Path: []*gpb.Path{path(t, "/bogus/thing")}}, codes.NotFound},
		{"unknown interface", &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=GigabitEthernet99]")}}, codes.NotFound},
		{"malformed element", &gpb.GetRequest{Path: []*gpb.Path{{Elem: []*gpb.PathElem{{Name: ""}}}}}, codes.InvalidArgument},
		{"malformed string element", &gpb.GetRequest{Path: []*gpb.Path{{Element: []string{"interface[name=Gi1"}}}}, codes.InvalidArgument},
		{"other origin", &gpb.GetRequest{Path: []*gpb.Path{{Origin: "cli"}}}, codes.InvalidArgument},
		{"ASCII", &gpb.GetRequest{Path: []*gpb.Path{path(t, "/system")}, Encoding: gpb.Encoding_ASCII}, codes.Unimplemented},
		{"BYTES", &gpb.GetRequest{Path: []*gpb.Path{path(t, "/system")}, Encoding: gpb.Encoding_BYTES}, codes.Unimplemented},
	} {
		if _, err := c.Get(ctx(t, account.Password), check.req); status.Code(err) != check.want {
			t.Errorf("%s: %v, want %s", check.name, err, check.want)
		}
	}
}

func TestEachDeviceOfTheFleetIsItsOwn(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 3)
	for device := 1; device <= 3; device++ {
		resp := get(t, f.client(t, device), &gpb.GetRequest{Path: []*gpb.Path{path(t, "/system/state/hostname")},
			Encoding: gpb.Encoding_PROTO})
		want := "lab-r" + string(rune('0'+device))
		if got := resp.GetNotification()[0].GetUpdate()[0].GetVal().GetStringVal(); got != want {
			t.Errorf("device %d: hostname %q, want %q", device, got, want)
		}
	}
}

func TestGetOfADataTypeWithoutValuesIsEmpty(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	before := time.Now()
	resp := get(t, f.client(t, 1), &gpb.GetRequest{Path: []*gpb.Path{path(t, "/interfaces/interface[name=Loopback0]/state/counters")},
		Type: gpb.GetRequest_CONFIG, Encoding: gpb.Encoding_JSON_IETF})
	n := resp.GetNotification()[0]
	if len(n.GetUpdate()) != 0 || n.GetTimestamp() < before.UnixNano() {
		t.Errorf("counters as CONFIG: %v", n)
	}
}
