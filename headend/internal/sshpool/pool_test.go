package sshpool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"transportlab/headend/internal/sshtest"
)

// observer records what the pool reports.
type observer struct {
	mu       sync.Mutex
	dialsOK  int
	dialsBad int
	idle     int
}

func (o *observer) Dialed(ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if ok {
		o.dialsOK++
	} else {
		o.dialsBad++
	}
}

func (o *observer) IdleConnections(n int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.idle = n
}

func (o *observer) snapshot() (ok, bad, idle int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dialsOK, o.dialsBad, o.idle
}

const device = "127.0.0.1"

func newPool(t *testing.T, srv *sshtest.Server, maxIdle int) (*Pool, *observer) {
	t.Helper()
	obs := &observer{}
	p := New(Config{
		Port: srv.Port, User: sshtest.User, Password: sshtest.Password,
		DialTimeout: 10 * time.Second, MaxIdle: maxIdle, Observer: obs,
	})
	t.Cleanup(p.Close)
	return p, obs
}

func commands(n int) []string {
	var c []string
	for i := range n {
		c = append(c, fmt.Sprintf("show item %d", i))
	}
	return c
}

func TestFresh(t *testing.T) {
	srv := sshtest.Start(t)
	p, obs := newPool(t, srv, 8)
	for range 2 {
		res, err := p.Fresh(t.Context(), device, []string{"show version", "fail", "show clock"})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"output of show version\n", "partial\ndenied\n", "output of show clock\n"}
		if !slices.Equal(res.Outputs, want) || !slices.Equal(res.ExitStatuses, []int{0, 1, 0}) {
			t.Fatalf("outputs %q statuses %v", res.Outputs, res.ExitStatuses)
		}
		if res.Reused || res.Connect <= 0 || res.LAN.BytesSent == 0 || res.LAN.BytesReceived == 0 {
			t.Fatalf("result %+v", res)
		}
	}
	if ok, bad, idle := obs.snapshot(); ok != 2 || bad != 0 || idle != 0 {
		t.Fatalf("dials ok %d bad %d, idle %d: want 2 dials, nothing kept", ok, bad, idle)
	}
	if srv.Logins() != 2 {
		t.Fatalf("%d logins, want one per request", srv.Logins())
	}
}

// TestRoundTrips: a fresh exec of n commands costs at least one round trip
// per command plus the connect, and a pooled one, which skips the connect
// and the login, fewer than the fresh one. A command costs 2 or 3 round
// trips, with how the device's answer is split into reads (the client's
// window adjustments can turn the conversation mid-answer), so the login's
// six or more keep pooled below fresh for a few commands only: compared up
// to 3.
func TestRoundTrips(t *testing.T) {
	srv := sshtest.Start(t)
	p, _ := newPool(t, srv, 8)
	for _, n := range []int{1, 3, 8} {
		fresh, err := p.Fresh(t.Context(), device, commands(n))
		if err != nil {
			t.Fatal(err)
		}
		if fresh.LAN.RoundTrips < int64(n)+1 {
			t.Errorf("fresh, %d commands: %d round trips, want ≥ %d", n, fresh.LAN.RoundTrips, n+1)
		}
		if _, err := p.Pooled(t.Context(), device, commands(n)); err != nil {
			t.Fatal(err)
		}
		pooled, err := p.Pooled(t.Context(), device, commands(n))
		if err != nil {
			t.Fatal(err)
		}
		if !pooled.Reused {
			t.Fatal("second pooled request not reused")
		}
		t.Logf("%d commands: fresh %+v, pooled %+v", n, fresh.LAN, pooled.LAN)
		if pooled.LAN.RoundTrips < int64(n) {
			t.Errorf("%d commands: pooled %d round trips, want ≥ %d", n, pooled.LAN.RoundTrips, n)
		}
		if n <= 3 && pooled.LAN.RoundTrips >= fresh.LAN.RoundTrips {
			t.Errorf("%d commands: pooled %d round trips, fresh %d: want fewer pooled",
				n, pooled.LAN.RoundTrips, fresh.LAN.RoundTrips)
		}
		if pooled.LAN.BytesSent >= fresh.LAN.BytesSent || pooled.LAN.BytesReceived >= fresh.LAN.BytesReceived {
			t.Errorf("%d commands: pooled bytes %+v not below fresh %+v", n, pooled.LAN, fresh.LAN)
		}
	}
}

func TestPooledReuse(t *testing.T) {
	srv := sshtest.Start(t)
	p, obs := newPool(t, srv, 8)
	first, err := p.Pooled(t.Context(), device, []string{"show version"})
	if err != nil {
		t.Fatal(err)
	}
	if first.Reused || first.Connect <= 0 {
		t.Fatalf("first request: %+v, want a dial", first)
	}
	for range 3 {
		res, err := p.Pooled(t.Context(), device, []string{"show clock"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Reused || res.Connect != 0 || res.Outputs[0] != "output of show clock\n" {
			t.Fatalf("later request: %+v, want the pooled connection", res)
		}
	}
	if ok, _, idle := obs.snapshot(); ok != 1 || idle != 1 || srv.Logins() != 1 {
		t.Fatalf("dials %d, idle %d, logins %d: want one connection, kept", ok, idle, srv.Logins())
	}
}

// TestDeadPooledConnection: a pooled connection the device closed is
// replaced by one fresh dial, and the request succeeds.
func TestDeadPooledConnection(t *testing.T) {
	srv := sshtest.Start(t)
	p, obs := newPool(t, srv, 8)
	if _, err := p.Pooled(t.Context(), device, []string{"show version"}); err != nil {
		t.Fatal(err)
	}
	srv.DropConnections()
	res, err := p.Pooled(t.Context(), device, []string{"show version"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reused || res.Connect <= 0 || res.Outputs[0] != "output of show version\n" {
		t.Fatalf("after the drop: %+v, want a fresh dial", res)
	}
	if ok, _, idle := obs.snapshot(); ok != 2 || idle != 1 || srv.Logins() != 2 {
		t.Fatalf("dials %d, idle %d, logins %d", ok, idle, srv.Logins())
	}
}

// TestFailureAfterFirstCommand: a connection that breaks during the request
// fails it (no partial result) and is not kept.
func TestFailureAfterFirstCommand(t *testing.T) {
	for _, broken := range []string{"drop", "noexit"} {
		srv := sshtest.Start(t)
		p, obs := newPool(t, srv, 8)
		res, err := p.Pooled(t.Context(), device, []string{"show version", broken, "show clock"})
		if err == nil || res.Outputs != nil {
			t.Fatalf("%s: err %v, outputs %q: want an error, no outputs", broken, err, res.Outputs)
		}
		if !strings.Contains(err.Error(), "command 2") {
			t.Errorf("%s: error %q does not name the command", broken, err)
		}
		if _, _, idle := obs.snapshot(); idle != 0 {
			t.Fatalf("%s: a broken connection was kept", broken)
		}
	}
}

func TestHostKeyMismatch(t *testing.T) {
	srv := sshtest.Start(t)
	p, _ := newPool(t, srv, 8)
	if _, err := p.Fresh(t.Context(), device, []string{"show version"}); err != nil {
		t.Fatal(err)
	}
	// The same key again is accepted.
	if _, err := p.Fresh(t.Context(), device, []string{"show version"}); err != nil {
		t.Fatal(err)
	}
	srv.RotateHostKey(t)
	_, err := p.Fresh(t.Context(), device, []string{"show version"})
	if err == nil || !strings.Contains(err.Error(), "host key mismatch for "+srv.Addr) {
		t.Fatalf("err %v, want a host key mismatch naming %s", err, srv.Addr)
	}
	// Another pool (another head-end start) trusts the new key.
	other, _ := newPool(t, srv, 8)
	if _, err := other.Fresh(t.Context(), device, []string{"show version"}); err != nil {
		t.Fatal(err)
	}
}

func TestWrongPassword(t *testing.T) {
	srv := sshtest.Start(t)
	obs := &observer{}
	p := New(Config{Port: srv.Port, User: sshtest.User, Password: "wrong", DialTimeout: 10 * time.Second, MaxIdle: 8, Observer: obs})
	defer p.Close()
	_, err := p.Pooled(t.Context(), device, []string{"show version"})
	if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("err %v, want an authentication failure", err)
	}
	if ok, bad, _ := obs.snapshot(); ok != 0 || bad != 1 {
		t.Fatalf("dials ok %d bad %d", ok, bad)
	}
}

func TestTimeout(t *testing.T) {
	srv := sshtest.Start(t)
	p, obs := newPool(t, srv, 8)
	if _, err := p.Pooled(t.Context(), device, []string{"show version"}); err != nil {
		t.Fatal(err)
	}
	for _, run := range []func(context.Context, string, []string) (Result, error){p.Pooled, p.Fresh} {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		_, err := run(ctx, device, []string{"show version", "hang"})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want the deadline", err)
		}
	}
	if _, _, idle := obs.snapshot(); idle != 0 {
		t.Fatal("the connection that timed out was kept")
	}
}

func TestDialRefused(t *testing.T) {
	srv := sshtest.Start(t)
	p, _ := newPool(t, srv, 8)
	p.cfg.Port = 1 // nothing listens on loopback's port 1
	_, err := p.Fresh(t.Context(), device, []string{"show version"})
	if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("err %v, want a dial failure naming the address", err)
	}
}

// TestMaxIdle: at most MaxIdle idle connections per device; the extra ones
// and any returned after Close are closed.
func TestMaxIdle(t *testing.T) {
	srv := sshtest.Start(t)
	p, obs := newPool(t, srv, 2)
	var conns []*conn
	for range 4 {
		c, err := p.dial(t.Context(), device)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns[:3] {
		p.put(device, c)
	}
	if _, _, idle := obs.snapshot(); idle != 2 {
		t.Fatalf("idle %d, want 2", idle)
	}
	if _, _, err := conns[2].client.SendRequest("ping", true, nil); err == nil {
		t.Fatal("the connection over MaxIdle is still open")
	}
	p.Close()
	p.put(device, conns[3])
	for i, c := range conns {
		if _, _, err := c.client.SendRequest("ping", true, nil); err == nil {
			t.Fatalf("connection %d still open after Close", i)
		}
	}
	if _, _, idle := obs.snapshot(); idle != 0 {
		t.Fatalf("idle %d after Close", idle)
	}
}
