package gnmi

import (
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

func stringVal(s string) *gpb.TypedValue {
	return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: s}}
}

func runningConfig(t *testing.T, store *configdb.Store) string {
	t.Helper()
	lines, err := store.Lines()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

func TestSetIsVisibleToTheCLIAndNETCONF(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	resp, err := c.Set(ctx(t, account.Password), &gpb.SetRequest{Update: []*gpb.Update{
		{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/description"), Val: stringVal("set by gNMI")},
		{Path: path(t, "/interfaces/interface[name=GigabitEthernet3]/config/enabled"),
			Val: &gpb.TypedValue{Value: &gpb.TypedValue_BoolVal{BoolVal: false}}},
		{Path: path(t, "/interfaces/interface[name=Loopback7]/config"),
			Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"openconfig-interfaces:description":"new loopback"}`)}}},
		// pygnmi sends a str as its bare bytes.
		{Path: path(t, "/system/config/hostname"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte("edge-1")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetResponse()) != 4 || resp.GetTimestamp() <= 0 {
		t.Errorf("response %v", resp)
	}
	config := runningConfig(t, f.stores[0])
	for _, want := range []string{"interface GigabitEthernet2\n description set by gNMI",
		"interface GigabitEthernet3\n description Lab LAN B\n ip address 198.18.20.1 255.255.255.0\n shutdown",
		"interface Loopback7\n description new loopback"} {
		if !strings.Contains(config, want) {
			t.Errorf("running-config lacks %q:\n%s", want, config)
		}
	}
	if h := f.stores[0].Hostname(); h != "edge-1" {
		t.Errorf("hostname %q", h)
	}
	filter := xmltree.Elem("", "filter", xmltree.Elem(configdb.NativeNS, "native", xmltree.Elem(configdb.NativeNS, "interface")))
	nodes, rpcErr := f.stores[0].Datastore().Get(datastore.Running, filter)
	if rpcErr != nil {
		t.Fatal(rpcErr)
	}
	if !strings.Contains(nodes[0].String(), "set by gNMI") {
		t.Errorf("NETCONF running lacks the description: %s", nodes[0].String())
	}
}

func TestSetIsAtomic(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	before := runningConfig(t, f.stores[0])
	for _, check := range []struct {
		name string
		req  *gpb.SetRequest
		want codes.Code
	}{
		{"read-only leaf after a good one", &gpb.SetRequest{Update: []*gpb.Update{
			{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/description"), Val: stringVal("half")},
			{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/state/oper-status"), Val: stringVal("DOWN")},
		}}, codes.InvalidArgument},
		{"unknown path after a good one", &gpb.SetRequest{Update: []*gpb.Update{
			{Path: path(t, "/system/config/hostname"), Val: stringVal("half")},
			{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/speed"), Val: stringVal("fast")},
		}}, codes.NotFound},
		{"bad type after a delete", &gpb.SetRequest{
			Delete: []*gpb.Path{path(t, "/interfaces/interface[name=GigabitEthernet1]")},
			Update: []*gpb.Update{{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/enabled"), Val: stringVal("yes")}},
		}, codes.InvalidArgument},
		{"malformed JSON", &gpb.SetRequest{Replace: []*gpb.Update{{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config"),
			Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"description":`)}}}}}, codes.InvalidArgument},
		{"non-canonical interface name", &gpb.SetRequest{Update: []*gpb.Update{
			{Path: path(t, "/interfaces/interface[name=Gi2]/config/description"), Val: stringVal("x")}}}, codes.InvalidArgument},
		{"description with a newline", &gpb.SetRequest{Update: []*gpb.Update{
			{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/description"), Val: stringVal("a\nhostname evil")}}},
			codes.InvalidArgument},
	} {
		if _, err := c.Set(ctx(t, account.Password), check.req); status.Code(err) != check.want {
			t.Errorf("%s: %v, want %s", check.name, err, check.want)
		}
		if after := runningConfig(t, f.stores[0]); after != before {
			t.Fatalf("%s changed the configuration:\n%s", check.name, after)
		}
	}
}

func TestSetLimits(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	many := &gpb.SetRequest{}
	for k := 0; k <= MaxSetOperations; k++ {
		many.Update = append(many.Update, &gpb.Update{Path: path(t, "/system/config/hostname"), Val: stringVal("h")})
	}
	if _, err := c.Set(ctx(t, account.Password), many); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("%d updates: %v", len(many.Update), err)
	}
	huge := &gpb.SetRequest{Update: []*gpb.Update{{Path: path(t, "/interfaces/interface[name=Loopback0]/config/description"),
		Val: stringVal(strings.Repeat("x", MaxMessageBytes))}}}
	if _, err := c.Set(ctx(t, account.Password), huge); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("a Set over %d bytes: %v", MaxMessageBytes, err)
	}
}

func TestSetDeletes(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	_, err := c.Set(ctx(t, account.Password), &gpb.SetRequest{Delete: []*gpb.Path{
		path(t, "/interfaces/interface[name=GigabitEthernet3]"),
		path(t, "/interfaces/interface[name=GigabitEthernet2]/config/description"),
		path(t, "/interfaces/interface[name=Loopback0]/subinterfaces/subinterface[index=0]/ipv4/addresses/address[ip=198.19.255.1]"),
		path(t, "/interfaces/interface[name=Loopback9]"), // absent: nothing to do
	}})
	if err != nil {
		t.Fatal(err)
	}
	config := runningConfig(t, f.stores[0])
	for _, gone := range []string{"GigabitEthernet3", "Lab LAN A", "198.19.255.1", "Loopback9"} {
		if strings.Contains(config, gone) {
			t.Errorf("%s still in running-config:\n%s", gone, config)
		}
	}
}
