package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/fleet"
	"transportlab/emulator/internal/restconf"
)

// newSeededFleetServer serves a fleet of three seeded devices on
// 127.0.0.16/28 (.17, .18, .19), each with its own store and RESTCONF.
func newSeededFleetServer(t *testing.T) (string, *recorder, configdb.Fleet) {
	t.Helper()
	plan, err := fleet.New("lab-r1", 3, "127.0.0.16/28")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"lab-r1", "lab-r2", "lab-r3"}
	stores, err := configdb.SeededFleet("cisco_iosxe", names)
	if err != nil {
		t.Fatal(err)
	}
	crypto, err := cryptoprofile.Assign("cisco_iosxe", 3, "", "2:modern")
	if err != nil {
		t.Fatal(err)
	}
	f := Fleet{Platform: "cisco_iosxe", Plan: plan}
	for k, store := range stores {
		f.Devices = append(f.Devices, Device{Config: store,
			RESTCONF:      restconf.New(store.Datastore(), map[string]string{configdb.NativeModule: configdb.NativeNS}),
			CryptoProfile: crypto[k].Name, Crypto: crypto[k].Effective(testBuilds)})
	}
	srv, rec := newFleetServer(t, f)
	return srv.URL, rec, stores
}

// doOn sends one authenticated request as nginx forwards it for a client
// that connected to address ("" leaves the header out).
func doOn(t *testing.T, method, url, body, address string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("labops", "s3cret")
	if address != "" {
		req.Header.Set(DeviceAddressHeader, address)
	}
	if body != "" {
		req.Header.Set("Content-Type", "text/plain")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(answer)
}

// TestTheAddressPicksTheDevice: exec, configuration and RESTCONF requests
// reach the store of the device whose address the client connected to,
// and only that one.
func TestTheAddressPicksTheDevice(t *testing.T) {
	url, rec, stores := newSeededFleetServer(t)
	for address, want := range map[string]string{"127.0.0.17": "lab-r1", "127.0.0.18": "lab-r2", "127.0.0.19": "lab-r3",
		"": "lab-r1", "198.18.100.5": "lab-r1", "127.0.0.20": "lab-r1", "garbage": "lab-r1"} {
		if code, body := doOn(t, "GET", url+"/admin/exec/show+version", "", address); code != 200 || !strings.HasPrefix(body, want+" ") {
			t.Errorf("%q: %d %q, want %s", address, code, body, want)
		}
	}
	if code, body := doOn(t, "POST", url+"/admin/config", "hostname edge-2\ninterface Gi2\n description r2 only\n", "127.0.0.18"); code != 200 {
		t.Fatalf("config on device 2: %d %q", code, body)
	}
	if _, body := doOn(t, "GET", url+"/admin/exec/show+running-config", "", "127.0.0.18"); !strings.Contains(body, "hostname edge-2\n") ||
		!strings.Contains(body, " description r2 only\n") {
		t.Errorf("device 2 running-config:\n%s", body)
	}
	if _, body := doOn(t, "GET", url+"/admin/exec/show+running-config", "", "127.0.0.17"); strings.Contains(body, "r2 only") ||
		!strings.Contains(body, "hostname lab-r1\n") {
		t.Errorf("device 1 running-config:\n%s", body)
	}
	_, body := doOn(t, "GET", url+"/restconf/data/Cisco-IOS-XE-native:native/hostname", "", "127.0.0.18")
	if !strings.Contains(body, "edge-2") {
		t.Errorf("device 2 RESTCONF hostname %q", body)
	}
	_, body = doOn(t, "GET", url+"/restconf/data/Cisco-IOS-XE-native:native/hostname", "", "127.0.0.19")
	if !strings.Contains(body, "lab-r3") {
		t.Errorf("device 3 RESTCONF hostname %q", body)
	}
	patch, err := http.NewRequest("PATCH", url+"/restconf/data/Cisco-IOS-XE-native:native",
		strings.NewReader(`{"Cisco-IOS-XE-native:native":{"hostname":"edge-3"}}`))
	if err != nil {
		t.Fatal(err)
	}
	patch.SetBasicAuth("labops", "s3cret")
	patch.Header.Set("Content-Type", restconf.MediaJSON)
	patch.Header.Set(DeviceAddressHeader, "127.0.0.19")
	resp, err := http.DefaultClient.Do(patch)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("RESTCONF PATCH on device 3: %d", resp.StatusCode)
	}
	for k, want := range []string{"lab-r1", "edge-2", "edge-3"} {
		if got := stores[k].Hostname(); got != want {
			t.Errorf("device %d hostname %q, want %q", k+1, got, want)
		}
	}
	if rec.devices[2] == 0 || rec.devices[3] != 1 {
		t.Errorf("commands per device %v", rec.devices)
	}
}

func TestFleetRoute(t *testing.T) {
	url, rec, _ := newSeededFleetServer(t)
	code, body := doOn(t, "GET", url+"/admin/fleet", "", "127.0.0.18")
	var doc struct {
		Platform string
		Devices  []struct {
			Index         int
			Name          string
			Address       string
			CryptoProfile string `json:"crypto_profile"`
			Crypto        struct {
				SSH map[string]any
				TLS map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); code != 200 || err != nil {
		t.Fatalf("%d %q %v", code, body, err)
	}
	if doc.Platform != "cisco_iosxe" || len(doc.Devices) != 3 || doc.Devices[2].Index != 3 ||
		doc.Devices[2].Name != "lab-r3" || doc.Devices[2].Address != "127.0.0.19" {
		t.Errorf("fleet %+v", doc)
	}
	if !strings.Contains(body, `{"index":1,"name":"lab-r1","address":"127.0.0.17","crypto_profile":"cisco_iosxe",`) {
		t.Errorf("field names: %s", body)
	}
	// Each device's profile, with its lists as sshd and nginx were configured.
	if doc.Devices[0].CryptoProfile != "cisco_iosxe" || doc.Devices[1].CryptoProfile != "modern" ||
		doc.Devices[2].CryptoProfile != "cisco_iosxe" {
		t.Errorf("profiles %+v", doc.Devices)
	}
	if macs, ok := doc.Devices[0].Crypto.SSH["macs"].([]any); !ok || len(macs) != 2 ||
		macs[0] != "hmac-sha2-256-etm@openssh.com" {
		t.Errorf("cisco_iosxe MACs %v", doc.Devices[0].Crypto.SSH["macs"])
	}
	if doc.Devices[1].Crypto.SSH["kex"] != "defaults of OpenSSH_9.2p1" ||
		doc.Devices[1].Crypto.TLS["ciphersuites_tls13"] != "defaults of OpenSSL 3.0.17" {
		t.Errorf("modern %+v", doc.Devices[1].Crypto)
	}
	if code, _, _ := do(t, "GET", url+"/admin/fleet", "", false); code != http.StatusUnauthorized {
		t.Errorf("without credentials: %d", code)
	}
	if rec.requests["fleet OK"] != 1 {
		t.Errorf("requests %v", rec.requests)
	}

	// One device without an address block: no address to give.
	single, _ := newTestServer(t)
	if code, _, body := do(t, "GET", single.URL+"/admin/fleet", "", true); code != 200 || !strings.HasPrefix(body,
		`{"platform":"cisco_iosxe","devices":[{"index":1,"name":"lab-r1","address":"","crypto_profile":"modern",`) {
		t.Errorf("single device: %d %q", code, body)
	}
}

func TestNewHandlerNeedsAStatePerDevice(t *testing.T) {
	plan, err := fleet.New("lab-r1", 2, "127.0.0.16/28")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewHandler(nil, Credentials{}, &recorder{}, Fleet{Plan: plan, Devices: make([]Device, 1)}); err == nil {
		t.Error("one state for two devices accepted")
	}
}
