package api

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"transportlab/headend/internal/sshpool"
	"transportlab/headend/internal/sshtest"
	"transportlab/headend/internal/targets"
)

const (
	user     = "automation"
	password = "s3cret"
)

// requests records what the handler reports, as "ssh/outcome".
type requests struct {
	mu  sync.Mutex
	got []string
}

func (r *requests) Request(ssh, outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, ssh+"/"+outcome)
}

func (r *requests) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

type nopObserver struct{}

func (nopObserver) Dialed(bool)         {}
func (nopObserver) IdleConnections(int) {}

type fixture struct {
	ssh      *sshtest.Server
	url      string
	observed *requests
}

type options struct {
	timeout        time.Duration
	devicePassword string
}

func newFixture(t *testing.T, opts options) *fixture {
	t.Helper()
	if opts.timeout == 0 {
		opts.timeout = 30 * time.Second
	}
	if opts.devicePassword == "" {
		opts.devicePassword = sshtest.Password
	}
	srv := sshtest.Start(t)
	pool := sshpool.New(sshpool.Config{
		Port: srv.Port, User: sshtest.User, Password: opts.devicePassword,
		DialTimeout: 10 * time.Second, MaxIdle: 8, Observer: nopObserver{},
	})
	t.Cleanup(pool.Close)
	list, err := targets.Parse("127.0.0.0/8,localhost")
	if err != nil {
		t.Fatal(err)
	}
	observed := &requests{}
	handler := New(Config{
		Username: user, Password: password, Targets: list, CommandTimeout: opts.timeout,
		Runner: pool, Observer: observed, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	web := httptest.NewServer(handler)
	t.Cleanup(web.Close)
	return &fixture{ssh: srv, url: web.URL, observed: observed}
}

// post sends body to path with the API's credentials (user, password; none
// when user is empty) and returns the status, the headers and the body.
func (f *fixture) post(t *testing.T, path, body, user, password string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, data
}

// exec posts the commands and expects a 200.
func (f *fixture) exec(t *testing.T, device, ssh string, commands ...string) (execResponse, http.Header) {
	t.Helper()
	body, _ := json.Marshal(map[string][]string{"commands": commands})
	status, header, data := f.post(t, "/devices/"+device+"/exec?ssh="+ssh, string(body), user, password)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, data)
	}
	var res execResponse
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	return res, header
}

// failed posts the commands and expects the status, with an error message
// containing want.
func (f *fixture) failed(t *testing.T, path, body string, status int, want string) {
	t.Helper()
	got, header, data := f.post(t, path, body, user, password)
	var answer map[string]string
	if err := json.Unmarshal(data, &answer); err != nil || got != status {
		t.Fatalf("%s %s: status %d, %s: want %d and a JSON error", path, body, got, data, status)
	}
	if header.Get("Server-Timing") != "" {
		t.Errorf("%s: Server-Timing on a failure", path)
	}
	if !strings.Contains(answer["error"], want) {
		t.Fatalf("%s %s: error %q, want it to contain %q", path, body, answer["error"], want)
	}
}

func TestHealthz(t *testing.T) {
	f := newFixture(t, options{})
	resp, err := http.Get(f.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(data)) != `{"ok":true}` {
		t.Fatalf("status %d, %s", resp.StatusCode, data)
	}
}

func TestAuth(t *testing.T) {
	f := newFixture(t, options{})
	body := `{"commands": ["show version"]}`
	for _, creds := range [][2]string{{"", ""}, {user, "wrong"}, {"other", password}, {user, password + "x"}} {
		status, header, data := f.post(t, "/devices/127.0.0.1/exec", body, creds[0], creds[1])
		if status != http.StatusUnauthorized || !strings.HasPrefix(header.Get("WWW-Authenticate"), "Basic ") ||
			!strings.Contains(string(data), `"error"`) {
			t.Fatalf("credentials %q: status %d, WWW-Authenticate %q, %s", creds, status, header.Get("WWW-Authenticate"), data)
		}
	}
	if f.ssh.Logins() != 0 {
		t.Fatal("the device was contacted without credentials")
	}
	if got := f.observed.list(); len(got) != 4 || got[0] != "pooled/unauthorized" {
		t.Fatalf("observed %v", got)
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, options{})
	ok := `{"commands": ["show version"]}`
	many, _ := json.Marshal(map[string][]string{"commands": slices.Repeat([]string{"show clock"}, 65)})
	cases := []struct{ path, body, want string }{
		{"/devices/127.0.0.1/exec?ssh=both", ok, "ssh must be fresh or pooled"},
		{"/devices/bad_name/exec", ok, "neither an IPv4 address nor a host name"},
		{"/devices/::1/exec", ok, "neither an IPv4 address nor a host name"},
		{"/devices/127.0.0.1:22/exec", ok, "neither an IPv4 address nor a host name"},
		{"/devices/127.0.0.1/exec", `{"commands": [`, "body"},
		{"/devices/127.0.0.1/exec", ``, "body"},
		{"/devices/127.0.0.1/exec", `{}`, "0 commands"},
		{"/devices/127.0.0.1/exec", `{"commands": []}`, "0 commands"},
		{"/devices/127.0.0.1/exec", string(many), "65 commands"},
		{"/devices/127.0.0.1/exec", `{"commands": "show version"}`, "body"},
		{"/devices/127.0.0.1/exec", `{"commands": ["show version", ""]}`, "command 2 is empty"},
		{"/devices/127.0.0.1/exec", `{"commands": [" \t"]}`, "command 1 is empty"},
		{"/devices/127.0.0.1/exec", `{"commands": ["show version"], "timeout": 5}`, "unknown field"},
		{"/devices/127.0.0.1/exec", ok + ok, "more than one JSON value"},
		{"/devices/127.0.0.1/exec", `{"commands": ["` + strings.Repeat("x", 64<<10) + `"]}`, "body over 64 KiB"},
	}
	for _, c := range cases {
		f.failed(t, c.path, c.body, http.StatusBadRequest, c.want)
	}
	if f.ssh.Logins() != 0 {
		t.Fatal("the device was contacted for a bad request")
	}
	if got := f.observed.list(); got[0] != "invalid/bad_request" || got[1] != "pooled/bad_request" {
		t.Fatalf("observed %v", got)
	}
}

func TestTargets(t *testing.T) {
	f := newFixture(t, options{})
	for _, device := range []string{"10.1.2.3", "device", "localhost.example", "198.18.100.130"} {
		f.failed(t, "/devices/"+device+"/exec?ssh=fresh", `{"commands": ["show version"]}`,
			http.StatusForbidden, "not one of the head-end's targets")
	}
	if f.ssh.Logins() != 0 {
		t.Fatal("a device outside the targets was contacted")
	}
	// A listed host name is allowed (and dialed as given).
	res, _ := f.exec(t, "localhost", "fresh", "show version")
	if res.Device != "localhost" || res.Outputs[0] != "output of show version\n" {
		t.Fatalf("localhost: %+v", res)
	}
}

var serverTiming = regexp.MustCompile(`^ssh-connect;dur=(\d+\.\d{3}), ssh-commands;dur=(\d+\.\d{3}), total;dur=(\d+\.\d{3})$`)

func TestFreshAndPooled(t *testing.T) {
	f := newFixture(t, options{})
	commands := []string{"show version", "fail", "show clock"}
	fresh, header := f.exec(t, "127.0.0.1", "fresh", commands...)
	wantOutputs := []string{"output of show version\n", "partial\ndenied\n", "output of show clock\n"}
	if fresh.Device != "127.0.0.1" || fresh.SSH != "fresh" || fresh.Reused ||
		!slices.Equal(fresh.Outputs, wantOutputs) || !slices.Equal(fresh.ExitStatuses, []int{0, 1, 0}) {
		t.Fatalf("fresh: %+v", fresh)
	}
	if fresh.LAN.ConnectMS <= 0 || fresh.LAN.RoundTrips < int64(len(commands)) ||
		fresh.LAN.BytesSent <= 0 || fresh.LAN.BytesReceived <= 0 {
		t.Fatalf("fresh LAN: %+v", fresh.LAN)
	}
	// headend_ms holds the LAN times (each rounded to the microsecond).
	if fresh.HeadendMS+0.002 < fresh.LAN.ConnectMS+fresh.LAN.CommandsMS {
		t.Fatalf("headend_ms %.3f below connect %.3f + commands %.3f", fresh.HeadendMS, fresh.LAN.ConnectMS, fresh.LAN.CommandsMS)
	}
	m := serverTiming.FindStringSubmatch(header.Get("Server-Timing"))
	if m == nil || m[1] != fmt.Sprintf("%.3f", fresh.LAN.ConnectMS) || m[3] != fmt.Sprintf("%.3f", fresh.HeadendMS) {
		t.Fatalf("Server-Timing %q for %+v", header.Get("Server-Timing"), fresh)
	}

	first, _ := f.exec(t, "127.0.0.1", "pooled", commands...)
	if first.SSH != "pooled" || first.Reused {
		t.Fatalf("first pooled: %+v", first)
	}
	// No ssh parameter: pooled.
	again, header := f.exec(t, "127.0.0.1", "", commands...)
	if again.SSH != "pooled" || !again.Reused || again.LAN.ConnectMS != 0 || !slices.Equal(again.Outputs, wantOutputs) {
		t.Fatalf("second pooled: %+v", again)
	}
	if again.LAN.RoundTrips >= fresh.LAN.RoundTrips {
		t.Fatalf("pooled %d round trips, fresh %d: want fewer", again.LAN.RoundTrips, fresh.LAN.RoundTrips)
	}
	if m := serverTiming.FindStringSubmatch(header.Get("Server-Timing")); m == nil || m[1] != "0.000" {
		t.Fatalf("Server-Timing %q for a reused connection", header.Get("Server-Timing"))
	}
	if f.ssh.Logins() != 2 {
		t.Fatalf("%d logins, want 2 (fresh, then one pooled)", f.ssh.Logins())
	}

	// The device restarts: the pooled connection is dead, one fresh dial serves.
	f.ssh.DropConnections()
	redialed, _ := f.exec(t, "127.0.0.1", "pooled", "show version")
	if redialed.Reused || redialed.LAN.ConnectMS <= 0 || redialed.Outputs[0] != "output of show version\n" {
		t.Fatalf("after the drop: %+v", redialed)
	}
	if got, want := f.observed.list(), []string{"fresh/ok", "pooled/ok", "pooled/ok", "pooled/ok"}; !slices.Equal(got, want) {
		t.Fatalf("observed %v, want %v", got, want)
	}
}

func TestSSHFailures(t *testing.T) {
	f := newFixture(t, options{})
	f.failed(t, "/devices/127.0.0.1/exec", `{"commands": ["show version", "noexit"]}`,
		http.StatusBadGateway, "without exit status")
	f.failed(t, "/devices/127.0.0.1/exec?ssh=fresh", `{"commands": ["drop", "show version"]}`,
		http.StatusBadGateway, "command 1")
	f.ssh.RotateHostKey(t)
	f.failed(t, "/devices/127.0.0.1/exec?ssh=fresh", `{"commands": ["show version"]}`,
		http.StatusBadGateway, "host key mismatch for 127.0.0.1:")
	if got := f.observed.list(); !slices.Equal(got, []string{"pooled/ssh_error", "fresh/ssh_error", "fresh/ssh_error"}) {
		t.Fatalf("observed %v", got)
	}

	wrong := newFixture(t, options{devicePassword: "wrong"})
	wrong.failed(t, "/devices/127.0.0.1/exec", `{"commands": ["show version"]}`,
		http.StatusBadGateway, "unable to authenticate")
}

func TestTimeout(t *testing.T) {
	f := newFixture(t, options{timeout: 200 * time.Millisecond})
	for _, mode := range []string{"fresh", "pooled"} {
		f.failed(t, "/devices/127.0.0.1/exec?ssh="+mode, `{"commands": ["show version", "hang"]}`,
			http.StatusGatewayTimeout, "no answer within 200ms")
	}
	if got := f.observed.list(); !slices.Equal(got, []string{"fresh/timeout", "pooled/timeout"}) {
		t.Fatalf("observed %v", got)
	}
}
