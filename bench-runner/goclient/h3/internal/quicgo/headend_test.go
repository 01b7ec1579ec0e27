package quicgo

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/job"
)

// headendStandIn is an in-process HTTP/3 server with the head-end's exec route on loopback:
// it answers every POST with the device, the ssh use and the commands it received, as JSON,
// and counts connections.
type headendStandIn struct {
	addr        *net.UDPAddr
	connections atomic.Int64
	mu          sync.Mutex
	received    []headendRequest
}

type headendRequest struct {
	Device      string   `json:"device"`
	SSH         string   `json:"ssh"`
	ContentType string   `json:"content_type"`
	Commands    []string `json:"commands"`
}

func startHeadend(t *testing.T) *headendStandIn {
	t.Helper()
	h := &headendStandIn{}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.addr = pc.LocalAddr().(*net.UDPAddr)
	routes := http.NewServeMux()
	routes.HandleFunc("POST /devices/{device}/exec", h.serve)
	server := &http3.Server{
		Handler:   routes,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}},
		ConnContext: func(ctx context.Context, _ *quic.Conn) context.Context {
			h.connections.Add(1)
			return ctx
		},
	}
	go func() { _ = server.Serve(pc) }()
	t.Cleanup(func() {
		_ = server.Close()
		_ = pc.Close()
	})
	return h
}

func (h *headendStandIn) serve(w http.ResponseWriter, r *http.Request) {
	if user, password, ok := r.BasicAuth(); !ok || user != creds.Username || password != creds.Password {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	got := headendRequest{Device: r.PathValue("device"), SSH: r.URL.Query().Get("ssh"), ContentType: r.Header.Get("Content-Type")}
	var body execRequest
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	got.Commands = body.Commands
	h.mu.Lock()
	h.received = append(h.received, got)
	h.mu.Unlock()
	_ = json.NewEncoder(w).Encode(got)
}

func (h *headendStandIn) requests() []headendRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]headendRequest(nil), h.received...)
}

// job is a paced job against the head-end for device.
func (h *headendStandIn) job(device string) job.Job {
	return job.Job{
		Host: "127.0.0.1", Port: h.addr.Port, UsernameEnv: "U", PasswordEnv: "P",
		Paced: true, TimeoutS: answerTimeout.Seconds(), Device: device,
	}
}

// wantAnswer checks the iteration's one output: the head-end's answer as it came.
func wantAnswer(t *testing.T, got []string, want headendRequest) {
	t.Helper()
	encoded, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != string(encoded)+"\n" {
		t.Fatalf("outputs %q, want the answer %s", got, encoded)
	}
}

func TestHeadendPathEncodesAsTheRunnerDoes(t *testing.T) {
	// quote(device, safe="") in bench_runner/modes/clients/headend_httpx.py.
	if got, want := headendPath("198.18.100.129", sshFresh), "/devices/198.18.100.129/exec?ssh=fresh"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if got, want := headendPath("lab r1/a+b~c_d", sshPooled), "/devices/lab%20r1%2Fa%2Bb~c_d/exec?ssh=pooled"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestHeadendPostsEveryCommandOnAConnectionPerIteration(t *testing.T) {
	for _, ssh := range []sshUse{sshFresh, sshPooled} {
		h := startHeadend(t)
		it, err := NewHeadend(h.job("198.18.100.129"), creds, ssh, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(it.Opened()) != 0 {
			t.Fatalf("opened %v before the first iteration", it.Opened())
		}
		want := headendRequest{Device: "198.18.100.129", SSH: string(ssh), ContentType: "application/json", Commands: commands}
		for range 2 {
			result := iterate(t, it, commands)
			wantAnswer(t, result.Outputs, want)
			wantConnections(t, result.Connections, 1, false, false)
			if len(result.Phases) != 0 {
				t.Fatalf("phases %v: the runner splits the time by hop", result.Phases)
			}
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		if h.connections.Load() != 2 || len(h.requests()) != 2 {
			t.Fatalf("%s: head-end saw %d connections, %d requests", ssh, h.connections.Load(), len(h.requests()))
		}
	}
}

func TestHeadendKeepAliveUsesOneConnection(t *testing.T) {
	h := startHeadend(t)
	it, err := NewHeadend(h.job("device"), creds, sshPooled, true)
	if err != nil {
		t.Fatal(err)
	}
	wantConnections(t, it.Opened(), 1, false, false)
	want := headendRequest{Device: "device", SSH: "pooled", ContentType: "application/json", Commands: commands}
	for range 2 {
		result := iterate(t, it, commands)
		wantAnswer(t, result.Outputs, want)
		wantConnections(t, result.Connections, 0, false, false)
		if recovery := it.TakeRecovery(); recovery.SentAckEliciting < 1 || recovery.ReceivedAckEliciting < 1 {
			t.Fatalf("a POST and its answer counted as %+v", recovery)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if h.connections.Load() != 1 || len(h.requests()) != 2 {
		t.Fatalf("head-end saw %d connections, %d requests", h.connections.Load(), len(h.requests()))
	}
}

func TestHeadendStatusIsReportedForTheRunnerToCheck(t *testing.T) {
	h := startHeadend(t)
	it, err := NewHeadend(h.job("device"), job.Credentials{Username: "nobody"}, sshPooled, false)
	if err != nil {
		t.Fatal(err)
	}
	result := it.Iterate(commands)
	if result.Err != nil || len(result.Statuses) != 1 || result.Statuses[0] != http.StatusUnauthorized {
		t.Fatalf("wrong credentials: statuses %v, error %v", result.Statuses, result.Err)
	}
	if len(result.Connections) != 1 {
		t.Fatalf("%d connections reported", len(result.Connections))
	}
}

func TestHeadendModesNeedADevice(t *testing.T) {
	h := startHeadend(t)
	_, err := NewHeadend(h.job(""), creds, sshPooled, true)
	if err == nil || !strings.Contains(err.Error(), "no device") {
		t.Fatalf("a job without a device: %v", err)
	}
	if h.connections.Load() != 0 {
		t.Fatal("connected without a device")
	}
}
