package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"transportlab/emulator/internal/cryptoprofile"
	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/fleet"
)

// recorder counts what the handler reports.
type recorder struct {
	mu           sync.Mutex
	commands     int
	devices      map[int]int // commands per device
	errors       []string
	requests     map[string]int
	authFailures int
}

func (r *recorder) CommandServed(_ string, device int, errorKind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.commands++
	r.devices[device]++
	if errorKind != "" {
		r.errors = append(r.errors, errorKind)
	}
}

func (r *recorder) APIRequest(route string, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests[route+" "+http.StatusText(code)]++
}

func (r *recorder) AuthFailed(string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.authFailures++
}

// testBuilds stand for the image's OpenSSH, OpenSSL and nginx.
var testBuilds = cryptoprofile.Builds{OpenSSH: "OpenSSH_9.2p1", OpenSSL: "OpenSSL 3.0.17", Nginx: "nginx/1.22.1"}

func newTestServer(t *testing.T) (*httptest.Server, *recorder) {
	t.Helper()
	plan, err := fleet.New("lab-r1", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	modern, _ := cryptoprofile.Lookup("modern")
	return newFleetServer(t, Fleet{Platform: "cisco_iosxe", Plan: plan,
		Devices: []Device{{Config: engine.NewMemoryStore("lab-r1"), RESTCONF: http.NotFoundHandler(),
			CryptoProfile: "modern", Crypto: modern.Effective(testBuilds)}}})
}

// newFleetServer serves f with a small engine and a pinned clock.
func newFleetServer(t *testing.T, f Fleet) (*httptest.Server, *recorder) {
	t.Helper()
	var transcripts []engine.Transcript
	for cmd, body := range map[string]string{
		"show version":        "{{.Hostname}} uptime is {{.Uptime}}\n",
		"show clock":          "{{.Clock}}\n",
		"show controllers":    "none\n",
		"show running-config": "hostname {{.Hostname}}\n{{range .ConfigLines}}{{.}}\n{{end}}end\n",
	} {
		tr, err := engine.ParseTranscript(cmd, body)
		if err != nil {
			t.Fatal(err)
		}
		transcripts = append(transcripts, tr)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, err := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: start,
		Now: func() time.Time { return start.Add(time.Hour) }}, transcripts)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{requests: map[string]int{}, devices: map[int]int{}}
	handler, err := NewHandler(e, Credentials{Username: "labops", Password: "s3cret"}, rec, f)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv, rec
}

// do sends one request and returns status, headers and body.
func do(t *testing.T, method, url, body string, auth bool) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth {
		req.SetBasicAuth("labops", "s3cret")
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
	return resp.StatusCode, resp.Header, string(answer)
}

func TestHealthNeedsNoAuth(t *testing.T) {
	srv, _ := newTestServer(t)
	if code, _, body := do(t, "GET", srv.URL+"/healthz", "", false); code != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", code, body)
	}
}

func TestBadCredentialsGet401(t *testing.T) {
	srv, rec := newTestServer(t)
	code, header, body := do(t, "GET", srv.URL+"/admin/exec/show+version", "", false)
	if code != http.StatusUnauthorized || !strings.HasPrefix(header.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("no credentials: %d %v", code, header)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/admin/exec/show+version", nil)
	req.SetBasicAuth("labops", "wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong password: %d", resp.StatusCode)
	}
	if body != "Unauthorized\n" || rec.authFailures != 2 || rec.commands != 0 {
		t.Fatalf("body %q, failures %d, commands %d", body, rec.authFailures, rec.commands)
	}
}

func TestExecSingleAndMultipleCommands(t *testing.T) {
	srv, rec := newTestServer(t)
	code, header, body := do(t, "GET", srv.URL+"/admin/exec/show+version", "", true)
	if code != 200 || body != "lab-r1 uptime is 1 hour, 0 minutes\n" || !strings.HasPrefix(header.Get("Content-Type"), "text/plain") {
		t.Fatalf("show version: %d %q %v", code, body, header)
	}
	code, _, body = do(t, "GET", srv.URL+"/admin/exec/sh+ver/show%20clock/", "", true)
	want := "lab-r1 uptime is 1 hour, 0 minutes\n*01:00:00.000 UTC Thu Jan 1 2026\n"
	if code != 200 || body != want {
		t.Fatalf("multi: %d %q, want %q", code, body, want)
	}
	if rec.commands != 3 || rec.requests["exec OK"] != 2 {
		t.Fatalf("recorded %d commands, requests %v", rec.commands, rec.requests)
	}
}

func TestExecInvalidCommandIs400(t *testing.T) {
	srv, rec := newTestServer(t)
	code, _, body := do(t, "GET", srv.URL+"/admin/exec/show+version/show+bogus", "", true)
	want := "show bogus\n     ^\n% Invalid input detected at '^' marker.\n\n"
	if code != http.StatusBadRequest || body != want {
		t.Fatalf("got %d %q, want 400 %q", code, body, want)
	}
	if code, _, body = do(t, "GET", srv.URL+"/admin/exec/sh+c", "", true); code != 400 || !strings.Contains(body, "% Ambiguous command") {
		t.Fatalf("ambiguous: %d %q", code, body)
	}
	if len(rec.errors) != 2 || rec.errors[0] != "invalid_input" {
		t.Fatalf("recorded errors %v", rec.errors)
	}
	for _, path := range []string{"/admin/exec/", "/admin/exec/configure+terminal"} {
		if code, _, body := do(t, "GET", srv.URL+path, "", true); code != 400 || !strings.HasPrefix(body, "% ") {
			t.Errorf("%s: %d %q", path, code, body)
		}
	}
}

func TestPostConfigIsRemembered(t *testing.T) {
	srv, _ := newTestServer(t)
	cfg := "! lab baseline\r\ninterface Loopback0\r\n ip address 10.0.0.1 255.255.255.255\r\nexit\r\nntp server 198.18.0.1\r\n"
	code, _, body := do(t, "POST", srv.URL+"/admin/config", cfg, true)
	if code != 200 || body != "Enter configuration commands, one per line.  End with CNTL/Z.\n" {
		t.Fatalf("config: %d %q", code, body)
	}
	_, _, running := do(t, "GET", srv.URL+"/admin/exec/show+running-config", "", true)
	want := "hostname lab-r1\ninterface Loopback0\n ip address 10.0.0.1 255.255.255.255\n!\nntp server 198.18.0.1\nend\n"
	if running != want {
		t.Fatalf("running-config %q, want %q", running, want)
	}
	code, _, body = do(t, "POST", srv.URL+"/admin/config", "ntp server 198.18.0.9\nfrobnicate\nlogging host 198.18.0.5\n", true)
	if code != 400 || !strings.Contains(body, "frobnicate\n^\n% Invalid input") {
		t.Fatalf("bad config line: %d %q", code, body)
	}
	if _, _, running = do(t, "GET", srv.URL+"/admin/exec/show+run", "", true); !strings.Contains(running, "198.18.0.9") ||
		strings.Contains(running, "198.18.0.5") {
		t.Fatalf("lines before the error stay applied, after it not: %q", running)
	}
}

func TestPostConfigRejectsWrongInput(t *testing.T) {
	srv, _ := newTestServer(t)
	req, _ := http.NewRequest("POST", srv.URL+"/admin/config", strings.NewReader(`{"a":1}`))
	req.SetBasicAuth("labops", "s3cret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("json body: %d", resp.StatusCode)
	}
	big := strings.Repeat("ntp server 198.18.0.1\n", MaxBodyBytes/10)
	if code, _, _ := do(t, "POST", srv.URL+"/admin/config", big, true); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d", code)
	}
	if code, header, _ := do(t, "GET", srv.URL+"/admin/config", "", true); code != http.StatusMethodNotAllowed || header.Get("Allow") == "" {
		t.Fatalf("GET /admin/config: %d", code)
	}
}

func TestCommandsFromPath(t *testing.T) {
	got, err := commandsFromPath("/admin/exec/show+ip+int+br/show%20interfaces%2FGi1/a%2Bb//")
	want := []string{"show ip int br", "show interfaces/Gi1", "a+b"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if _, err := commandsFromPath("/admin/exec/show%zz"); err == nil {
		t.Fatal("bad escape accepted")
	}
}
