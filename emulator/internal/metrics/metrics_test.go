package metrics

import (
	"io"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStubStatus(t *testing.T) {
	body := "Active connections: 3 \nserver accepts handled requests\n 17 17 40 \nReading: 0 Writing: 1 Waiting: 2 \n"
	got, err := parseStubStatus(body)
	if err != nil || got.active != 2 || got.accepted != 17 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := parseStubStatus("garbage"); err == nil {
		t.Fatal("garbage accepted")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCgroupV2AndV1(t *testing.T) {
	v2 := t.TempDir()
	writeFile(t, filepath.Join(v2, "cpu.stat"), "usage_usec 2500000\nuser_usec 1\n")
	writeFile(t, filepath.Join(v2, "memory.current"), "1048576\n")
	c := newCgroupCollector(v2)
	if cpu, ok := c.cpuSeconds(); !ok || cpu != 2.5 {
		t.Fatalf("v2 cpu %v %v", cpu, ok)
	}
	if mem, ok := c.memoryBytes(); !ok || mem != 1048576 {
		t.Fatalf("v2 memory %v %v", mem, ok)
	}

	v1 := t.TempDir()
	writeFile(t, filepath.Join(v1, "cpu,cpuacct", "cpuacct.usage"), "3000000000\n")
	writeFile(t, filepath.Join(v1, "memory", "memory.usage_in_bytes"), "2048\n")
	c = newCgroupCollector(v1)
	if cpu, ok := c.cpuSeconds(); !ok || cpu != 3 {
		t.Fatalf("v1 cpu %v %v", cpu, ok)
	}
	if mem, ok := c.memoryBytes(); !ok || mem != 2048 {
		t.Fatalf("v1 memory %v %v", mem, ok)
	}
}

func TestSSHSessionsPruneDeadProcesses(t *testing.T) {
	s := newSSHSessions(2)
	dead := map[int]bool{}
	s.alive = func(pid int) bool { return !dead[pid] }
	s.add(10, 1)
	s.add(11, 2)
	s.add(11, 2)
	s.remove(10)
	dead[11] = true
	s.add(12, 2)
	s.add(13, 3) // not a device of the fleet: counted in all only
	open, openOn, opened, openedOn := s.counts()
	if open != 2 || opened != 4 || openOn[0] != 0 || openOn[1] != 1 || openedOn[0] != 1 || openedOn[1] != 2 {
		t.Fatalf("open %v %v opened %v %v", open, openOn, opened, openedOn)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "cpu.stat"), "usage_usec 1000000\n")
	writeFile(t, filepath.Join(root, "memory.current"), "4096\n")
	info := VersionInfo{DeviceVersion: "test", Platform: "cisco_iosxe", Hostname: "lab-r1", HTTP3: "quic-go v0.65.0",
		GNMI: "openconfig/gnmi v0.14.1, grpc-go v1.85.0"}
	m := New(Sources{CgroupRoot: root, NginxStatusSocket: filepath.Join(root, "no-nginx.sock")}, info, []string{"lab-r1", "lab-r2"})
	m.CommandServed(TransportSSH, 1, "")
	m.CommandServed(TransportHTTPS, 2, "invalid_input")
	m.SSHSessionOpened(os.Getpid(), 2)
	m.NetconfSessionOpened(1)
	m.NetconfSessionOpened(2)
	m.NetconfSessionClosed(1)
	m.CommandServed(TransportNETCONF, 2, "operation-not-supported")
	m.CommandServed(TransportHTTP3, 2, "")
	m.HTTP3SessionOpened(2)
	m.HTTP3SessionOpened(2)
	m.HTTP3SessionClosed(2)
	m.HTTP3Handshake(true, true)
	m.HTTP3Request(true, false)
	m.HTTP3Request(true, false)
	m.HTTP3Request(true, true)
	m.HTTP3Request(false, false)
	m.GNMIRPC("Get", "OK")
	m.GNMIRPC("Get", "OK")
	m.GNMIRPC("Set", "InvalidArgument")
	m.GNMISubscriptionOpened("stream")
	m.GNMISubscriptionOpened("stream")
	m.GNMISubscriptionClosed("stream")
	m.GNMIUpdates("stream", 3)
	m.GNMISubscriptionDropped()
	m.AuthFailed(TransportGNMI)

	srv := httptest.NewServer(m.Handler(func(local netip.Addr) VersionInfo {
		info.CryptoProfile = "local " + local.String()
		return info
	}))
	defer srv.Close()
	body := scrape(t, srv)
	for _, want := range []string{
		`device_commands_total{transport="ssh"} 1`,
		`device_command_errors_total{kind="invalid_input",transport="https"} 1`,
		`device_sessions_open{transport="ssh"} 1`,
		`device_sessions_open{transport="netconf"} 1`,
		`device_sessions_total{transport="netconf"} 2`,
		`device_command_errors_total{kind="operation-not-supported",transport="netconf"} 1`,
		`device_container_cpu_seconds_total 1`,
		`device_container_memory_bytes 4096`,
		`device_collect_errors_total{source="cgroup"} 0`,
		`device_collect_errors_total{source="nginx"} 1`,
		`device_fleet_size 2`,
		`device_fleet_commands_total{device="lab-r1",transport="ssh"} 1`,
		`device_fleet_commands_total{device="lab-r2",transport="ssh"} 0`,
		`device_fleet_commands_total{device="lab-r2",transport="https"} 1`,
		`device_fleet_commands_total{device="lab-r2",transport="netconf"} 1`,
		`device_fleet_sessions_open{device="lab-r1",transport="ssh"} 0`,
		`device_fleet_sessions_open{device="lab-r2",transport="ssh"} 1`,
		`device_fleet_sessions_open{device="lab-r1",transport="netconf"} 0`,
		`device_fleet_sessions_open{device="lab-r2",transport="netconf"} 1`,
		`device_fleet_sessions_total{device="lab-r1",transport="netconf"} 1`,
		`device_fleet_sessions_total{device="lab-r2",transport="ssh"} 1`,
		`device_fleet_commands_total{device="lab-r2",transport="http3"} 1`,
		`device_sessions_open{transport="http3"} 1`,
		`device_sessions_total{transport="http3"} 2`,
		`device_fleet_sessions_total{device="lab-r2",transport="http3"} 2`,
		`device_fleet_sessions_total{device="lab-r1",transport="http3"} 0`,
		`device_http3_requests_total{early_data="true",outcome="accepted"} 2`,
		`device_http3_requests_total{early_data="true",outcome="refused"} 1`,
		`device_http3_requests_total{early_data="false",outcome="accepted"} 1`,
		`device_http3_requests_total{early_data="false",outcome="refused"} 0`,
		`device_http3_handshakes_total{early_data="true",resumed="true"} 1`,
		`device_http3_handshakes_total{early_data="false",resumed="false"} 0`,
		`device_gnmi_rpcs_total{code="OK",rpc="Get"} 2`,
		`device_gnmi_rpcs_total{code="InvalidArgument",rpc="Set"} 1`,
		`device_gnmi_subscriptions{mode="stream"} 1`,
		`device_gnmi_subscriptions{mode="once"} 0`,
		`device_gnmi_updates_total{mode="stream"} 3`,
		`device_gnmi_updates_total{mode="poll"} 0`,
		`device_gnmi_dropped_subscriptions_total 1`,
		`device_auth_failures_total{transport="gnmi"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// Every scrape shows the read errors of that scrape.
	if body := scrape(t, srv); !strings.Contains(body, `device_collect_errors_total{source="nginx"} 2`) {
		t.Errorf("second scrape lacks its nginx read error:\n%s", body)
	}
	resp, err := srv.Client().Get(srv.URL + "/version")
	if err != nil {
		t.Fatal(err)
	}
	version, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The document is for the address the client reached (httptest: loopback).
	if !strings.Contains(string(version), `"device_version": "test"`) ||
		!strings.Contains(string(version), `"http3": "quic-go v0.65.0"`) ||
		!strings.Contains(string(version), `"gnmi": "openconfig/gnmi v0.14.1, grpc-go v1.85.0"`) ||
		!strings.Contains(string(version), `"crypto_profile": "local 127.0.0.1"`) {
		t.Fatalf("version: %s", version)
	}
}

func scrape(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}
