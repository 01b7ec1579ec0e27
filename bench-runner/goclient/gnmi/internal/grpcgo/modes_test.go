package grpcgo

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

var commands = []string{"show version", "show clock", "show ip route", "show users"}

func open(t *testing.T, d *device, mode string) loop.Iterator {
	t.Helper()
	it, err := Modes[mode](d.job(), creds)
	if err != nil {
		t.Fatal(err)
	}
	if closer, ok := it.(io.Closer); ok {
		t.Cleanup(func() {
			if err := closer.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	return it
}

func iterate(t *testing.T, it loop.Iterator, commands []string) loop.Result {
	t.Helper()
	result := it.Iterate(commands)
	if result.Err != nil {
		t.Fatal(result.Err)
	}
	return result
}

func wantTLS(t *testing.T, got []report.Connection, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d connections reported, want %d", len(got), n)
	}
	for _, c := range got {
		if c.TLSVersion != tls.VersionTLS13 || c.ALPN != "h2" || c.CipherSuite == 0 || c.Group == 0 {
			t.Fatalf("negotiated %+v", c)
		}
	}
}

func TestCommandsMapOntoTheDevicesInterfacesInTurn(t *testing.T) {
	interfaces := []iface{{name: "a"}, {name: "b"}, {name: "c"}}
	var got []string
	for i := range 5 {
		got = append(got, pick(interfaces, i).name)
	}
	if strings.Join(got, ",") != "a,b,c,a,b" {
		t.Fatalf("got %v", got)
	}
}

func TestInterfacesKeepTheDevicesOrderAndDescriptions(t *testing.T) {
	leaf := func(name, leaf, value string) *gpb.Update {
		return &gpb.Update{Path: interfacePath(name, "config", leaf), Val: stringVal(value)}
	}
	response := &gpb.GetResponse{Notification: []*gpb.Notification{{
		Prefix: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interfaces"}}},
		Update: []*gpb.Update{
			{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "interface", Key: map[string]string{"name": "Loopback0"}}, {Name: "config"}, {Name: "name"}}}, Val: stringVal("Loopback0")},
		},
	}, {
		Update: []*gpb.Update{
			leaf("GigabitEthernet1", "name", "GigabitEthernet1"),
			leaf("GigabitEthernet1", "description", "uplink"),
			leaf("Loopback0", "mtu", "1514"),
		},
	}}}
	got, err := interfacesIn(response)
	if err != nil {
		t.Fatal(err)
	}
	want := []iface{{name: "Loopback0"}, {name: "GigabitEthernet1", description: "uplink", hasDescription: true}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := interfacesIn(&gpb.GetResponse{}); err == nil {
		t.Fatal("no interface: want an error")
	}
}

func TestRestoreUpdatesKeptDescriptionsAndDeletesAddedOnes(t *testing.T) {
	request := restoreRequest([]iface{{name: "Loopback0"}, {name: "Gi1", description: "uplink", hasDescription: true}})
	if len(request.GetDelete()) != 1 || pathsText(request.GetDelete()) != "/interfaces/interface[name=Loopback0]/config/description" {
		t.Fatalf("delete %v", request.GetDelete())
	}
	if len(request.GetUpdate()) != 1 || request.GetUpdate()[0].GetVal().GetStringVal() != "uplink" {
		t.Fatalf("update %v", request.GetUpdate())
	}
}

func TestDescriptionsAreUniquePerIterationAndCommand(t *testing.T) {
	seen := map[string]bool{}
	for iteration := 1; iteration <= 12; iteration++ {
		for i := range 12 {
			value := description("abcd", iteration, i)
			if seen[value] {
				t.Fatalf("%q written twice", value)
			}
			seen[value] = true
		}
	}
	if got := description("abcd", 3, 0); got != "bench abcd 3.1" {
		t.Fatalf("got %q", got)
	}
}

func TestVersionNamesGrpcGoAndTheGnmiModule(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Deps: []*debug.Module{
		{Path: "google.golang.org/grpc", Version: "v1.85.0"},
		{Path: "github.com/openconfig/gnmi", Version: "v0.14.1"},
	}}
	if got := describe(info, true); got != "grpc-go v1.85.0, openconfig/gnmi v0.14.1 (go1.26.8)" {
		t.Fatalf("got %q", got)
	}
}

func TestFreshConnOpensAChannelPerCommand(t *testing.T) {
	d := startDevice(t)
	it := open(t, d, "gnmi/fresh-conn")
	before := d.connections.Load()
	result := iterate(t, it, commands)
	if got := d.connections.Load() - before; got != int64(len(commands)) {
		t.Fatalf("%d connections for %d commands", got, len(commands))
	}
	wantTLS(t, result.Connections, len(commands))
	if len(result.Outputs) != len(commands) || !strings.Contains(result.Outputs[1], `"description":"uplink"`) {
		t.Fatalf("outputs %q", result.Outputs)
	}
	if !strings.Contains(result.Outputs[3], `"name":"Loopback0"`) { // the fourth of three interfaces
		t.Fatalf("outputs %q", result.Outputs)
	}
	for _, phase := range []string{"connect", "rpcs", "close"} {
		if _, ok := result.Phases[phase]; !ok {
			t.Fatalf("phases %v without %s", result.Phases, phase)
		}
	}
}

func TestReuseConnKeepsOneChannelAndGetsPerCommand(t *testing.T) {
	d := startDevice(t)
	it := open(t, d, "gnmi/reuse-conn")
	wantTLS(t, it.(loop.Opened).Opened(), 1)
	gets := d.gets.Load()
	for range 2 {
		if result := iterate(t, it, commands); len(result.Outputs) != len(commands) {
			t.Fatalf("outputs %q", result.Outputs)
		}
	}
	if d.connections.Load() != 1 || d.gets.Load()-gets != int64(2*len(commands)) {
		t.Fatalf("%d connections, %d gets", d.connections.Load(), d.gets.Load()-gets)
	}
}

func TestGetMultiAsksForEveryPathInOneGet(t *testing.T) {
	d := startDevice(t)
	it := open(t, d, "gnmi/get-multi")
	result := iterate(t, it, commands)
	if len(result.Outputs) != len(commands) {
		t.Fatalf("outputs %q", result.Outputs)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if last := d.getPaths[len(d.getPaths)-1]; len(d.getPaths) != 2 || last != len(commands) {
		t.Fatalf("gets of %v paths", d.getPaths)
	}
}

func TestSetBatchWritesEveryDescriptionInOneSetAndRestoresThem(t *testing.T) {
	d := startDevice(t)
	it, err := Modes["gnmi/set-batch"](d.job(), creds)
	if err != nil {
		t.Fatal(err)
	}
	iterate(t, it, commands[:3])
	iterate(t, it, commands[:3])
	if d.sets.Load() != 2 {
		t.Fatalf("%d Set requests for two iterations", d.sets.Load())
	}
	for _, name := range d.names {
		if value, _ := d.description(name); !strings.HasPrefix(value, "bench ") || !strings.HasSuffix(value, " 2."+map[string]string{"Loopback0": "1", "GigabitEthernet1": "2", "GigabitEthernet2": "3"}[name]) {
			t.Fatalf("%s: description %q", name, value)
		}
	}
	if err := it.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	if value, ok := d.description("GigabitEthernet1"); !ok || value != "uplink" {
		t.Fatalf("GigabitEthernet1 restored to %q (%v)", value, ok)
	}
	if _, ok := d.description("Loopback0"); ok {
		t.Fatal("Loopback0 had no description and keeps one")
	}
}

func TestSubscribeOnceReadsUntilSync(t *testing.T) {
	d := startDevice(t)
	result := iterate(t, open(t, d, "gnmi/subscribe-once"), commands)
	if len(result.Outputs) != 1 || strings.Count(result.Outputs[0], "openconfig-interfaces:config") != len(commands) {
		t.Fatalf("outputs %q", result.Outputs)
	}
}

func TestSubscribePollPollsTheKeptSubscription(t *testing.T) {
	d := startDevice(t)
	it := open(t, d, "gnmi/subscribe-poll")
	for range 3 {
		result := iterate(t, it, commands)
		if strings.Count(result.Outputs[0], "openconfig-interfaces:config") != len(commands) {
			t.Fatalf("outputs %q", result.Outputs)
		}
	}
	if result := it.Iterate(commands[:2]); result.Err == nil {
		t.Fatal("a step with other paths than the subscription's: want an error")
	}
}

func TestStreamReportsEachChangesDeviceAndReceiveTimes(t *testing.T) {
	d := startDevice(t)
	it := open(t, d, "gnmi/stream")
	// Both channels, the subscription's (a stream, never a unary call after discovery) and
	// the setter's.
	wantTLS(t, it.(loop.Opened).Opened(), 2)
	for iteration := 1; iteration <= 4; iteration++ {
		result := iterate(t, it, commands)
		var got arrival
		if err := json.Unmarshal([]byte(result.Outputs[0]), &got); err != nil {
			t.Fatal(err)
		}
		if got.DeviceNs == 0 || got.ReceivedNs < got.DeviceNs || !strings.HasSuffix(got.Value, fmt.Sprintf(" stream %d", iteration)) {
			t.Fatalf("iteration %d: %+v", iteration, got)
		}
		if got.Interface != d.names[(iteration-1)%len(d.names)] {
			t.Fatalf("iteration %d changed %s", iteration, got.Interface)
		}
	}
}

func TestSampleRateCountsUpdatesInItsWindow(t *testing.T) {
	d := startDevice(t)
	result := iterate(t, open(t, d, "gnmi/sample-rate"), commands)
	var got rate
	if err := json.Unmarshal([]byte(result.Outputs[0]), &got); err != nil {
		t.Fatal(err)
	}
	// A 1 ms sample for 2 s: at most one update per millisecond, and some arrived.
	if got.Updates == 0 || got.Updates > 2000 || got.WindowS != 2 || got.SampleInterval != 1 {
		t.Fatalf("%+v", got)
	}
}

func TestWrongCredentialsFailTheSession(t *testing.T) {
	d := startDevice(t)
	if _, err := Modes["gnmi/reuse-conn"](d.job(), job.Credentials{Username: "labops", Password: "wrong"}); err == nil || !strings.Contains(err.Error(), "Unauthenticated") {
		t.Fatalf("err %v", err)
	}
}
