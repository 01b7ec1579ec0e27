package quicgo

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

var commands = []string{"show version", "show ip/route"}

func TestExecPathEncodesAsTheRunnerDoes(t *testing.T) {
	// quote_plus(command, safe="") in bench_runner/modes/clients/device_api.py.
	got := execPath([]string{"show ip/route vrf a&b", "show clock"})
	if want := "/admin/exec/show+ip%2Froute+vrf+a%26b/show+clock"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func iterate(t *testing.T, it loop.Iterator, commands []string) loop.Result {
	t.Helper()
	result := it.Iterate(commands)
	if result.Err != nil {
		t.Fatal(result.Err)
	}
	if len(result.Outputs) != len(result.Statuses) {
		t.Fatalf("%d outputs, %d statuses", len(result.Outputs), len(result.Statuses))
	}
	for i, status := range result.Statuses {
		if status != 200 {
			t.Fatalf("status %d: %s", status, result.Outputs[i])
		}
	}
	return result
}

func wantOutputs(t *testing.T, result loop.Result, want ...string) {
	t.Helper()
	if strings.Join(result.Outputs, "|") != strings.Join(want, "|") {
		t.Fatalf("outputs %q, want %q", result.Outputs, want)
	}
}

// wantConnections checks what each connection negotiated: TLS 1.3, h3, and as asked
// about resumption and early data.
func wantConnections(t *testing.T, got []report.Connection, n int, resumed, early bool) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d connections reported, want %d", len(got), n)
	}
	for _, c := range got {
		if c.TLSVersion != tls.VersionTLS13 || c.ALPN != http3.NextProtoH3 || c.CipherSuite == 0 || c.Group == 0 {
			t.Fatalf("negotiated %+v", c)
		}
		if c.Resumed != resumed || c.Used0RTT != early {
			t.Fatalf("resumed %v, 0-RTT %v; want %v, %v", c.Resumed, c.Used0RTT, resumed, early)
		}
	}
}

func wantPhases(t *testing.T, phases map[string]float64, names ...string) {
	t.Helper()
	if len(phases) != len(names) {
		t.Fatalf("phases %v, want %v", phases, names)
	}
	for _, name := range names {
		if _, ok := phases[name]; !ok {
			t.Fatalf("phases %v without %s", phases, name)
		}
	}
}

var perConnectionPhases = []string{"tls_handshake", "send_request", "receive_headers", "receive_body", "close"}

func TestFreshConnOpensAFullHandshakePerCommand(t *testing.T) {
	d := startDevice(t, true)
	p, err := NewPerCommand(d.job(), creds, full)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Opened()) != 0 {
		t.Fatalf("opened %v before the first iteration", p.Opened())
	}
	for range 2 {
		result := iterate(t, p, commands)
		wantOutputs(t, result, "output of show version\n", "output of show ip/route\n")
		// The server issues tickets, but no cache keeps them: never resumed.
		wantConnections(t, result.Connections, 2, false, false)
		wantPhases(t, result.Phases, perConnectionPhases...)
	}
	if d.connections.Load() != 4 || d.early.Load() != 0 {
		t.Fatalf("server saw %d connections, %d early requests", d.connections.Load(), d.early.Load())
	}
}

func TestResumedOffersTheTicketWithoutEarlyData(t *testing.T) {
	d := startDevice(t, true)
	p, err := NewPerCommand(d.job(), creds, resumption)
	if err != nil {
		t.Fatal(err)
	}
	wantConnections(t, p.Opened(), 1, false, false)
	for range 2 {
		result := iterate(t, p, commands)
		wantConnections(t, result.Connections, 2, true, false)
		wantPhases(t, result.Phases, perConnectionPhases...)
	}
	if d.early.Load() != 0 {
		t.Fatalf("%d requests in early data", d.early.Load())
	}
}

func TestZeroRTTSendsTheRequestInEarlyData(t *testing.T) {
	d := startDevice(t, true)
	p, err := NewPerCommand(d.job(), creds, earlyData)
	if err != nil {
		t.Fatal(err)
	}
	wantConnections(t, p.Opened(), 1, false, false)
	d.flights.enabled.Store(true)
	result := iterate(t, p, commands)
	wantOutputs(t, result, "output of show version\n", "output of show ip/route\n")
	wantConnections(t, result.Connections, 2, true, true)
	wantPhases(t, result.Phases, "send_request", "receive_headers", "receive_body", "close")
	// Each GET reached the server before its handshake could complete (heldFlights).
	if d.early.Load() != int64(len(commands)) {
		t.Fatalf("server saw %d requests in early data, want %d", d.early.Load(), len(commands))
	}
}

func TestZeroRTTNeedsATicketThatAllowsEarlyData(t *testing.T) {
	d := startDevice(t, false)
	_, err := NewPerCommand(d.job(), creds, earlyData)
	if err == nil || !strings.Contains(err.Error(), "does not allow early data") {
		t.Fatalf("setup against a server without 0-RTT: %v", err)
	}
}

func TestAConnectionThatDidNotResumeFailsTheIteration(t *testing.T) {
	for kind, want := range map[handshake]string{
		resumption: "TLS session not resumed",
		earlyData:  "0-RTT",
	} {
		d := startDevice(t, true)
		p, err := NewPerCommand(d.job(), creds, kind)
		if err != nil {
			t.Fatal(err)
		}
		d.rotateTickets(t) // the kept ticket no longer decrypts: a full handshake
		result := p.Iterate(commands)
		if result.Err == nil || !strings.Contains(result.Err.Error(), want) {
			t.Fatalf("kind %d: error %v, want %q", kind, result.Err, want)
		}
		if !strings.HasPrefix(result.Err.Error(), "show version: ") || len(result.Connections) != 1 {
			t.Fatalf("kind %d: error %v after %d connections", kind, result.Err, len(result.Connections))
		}
	}
}

func TestKeepAliveUsesOneConnection(t *testing.T) {
	d := startDevice(t, true)
	k, err := NewKept(d.job(), creds, oneByOne)
	if err != nil {
		t.Fatal(err)
	}
	wantConnections(t, k.Opened(), 1, false, false)
	for range 2 {
		result := iterate(t, k, commands)
		wantOutputs(t, result, "output of show version\n", "output of show ip/route\n")
		wantConnections(t, result.Connections, 0, false, false)
		wantPhases(t, result.Phases, "send_request", "receive_headers", "receive_body")
	}
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	if d.connections.Load() != 1 || d.requests.Load() != 4 {
		t.Fatalf("server saw %d connections, %d requests", d.connections.Load(), d.requests.Load())
	}
}

func TestBatchSendsOneRequestWithEveryCommand(t *testing.T) {
	d := startDevice(t, true)
	k, err := NewKept(d.job(), creds, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	result := iterate(t, k, commands)
	wantOutputs(t, result, "output of show version\noutput of show ip/route\n")
	if paths := d.seen(); len(paths) != 1 || paths[0] != "/admin/exec/show+version/show+ip%2Froute" {
		t.Fatalf("paths %v", paths)
	}
}

func TestMultiCmdHasEveryRequestInFlightAtOnce(t *testing.T) {
	d := startDevice(t, true)
	many := []string{"show a", "show b", "show c", "show d"}
	// The server answers none until all four are in flight: one after the other fails.
	d.holdUntil(len(many))
	k, err := NewKept(d.job(), creds, concurrent)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	result := iterate(t, k, many)
	wantOutputs(t, result, "output of show a\n", "output of show b\n", "output of show c\n", "output of show d\n")
	if result.Phases != nil || d.connections.Load() != 1 {
		t.Fatalf("phases %v, %d connections", result.Phases, d.connections.Load())
	}
}

func TestStatusesAreReportedForTheRunnerToCheck(t *testing.T) {
	d := startDevice(t, true)
	k, err := NewKept(d.job(), creds, oneByOne)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	result := k.Iterate([]string{"show clock", "too early"})
	if result.Err != nil || len(result.Statuses) != 2 || result.Statuses[0] != 200 || result.Statuses[1] != 425 {
		t.Fatalf("statuses %v, error %v", result.Statuses, result.Err)
	}
	wrong := d.job()
	bad, err := NewKept(wrong, creds, oneByOne)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	bad.c.authorization = "Basic bm9ib2R5Og=="
	if got := bad.Iterate([]string{"show clock"}); got.Err != nil || got.Statuses[0] != 401 {
		t.Fatalf("wrong credentials: statuses %v, error %v", got.Statuses, got.Err)
	}
}
