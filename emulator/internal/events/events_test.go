package events

import (
	"path/filepath"
	"testing"
	"time"
)

func TestEmitReachesListener(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.sock")
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	received := make(chan Event, 2)
	malformed := make(chan struct{}, 1)
	go l.Serve(func(ev Event) { received <- ev }, func() { malformed <- struct{}{} })
	defer l.Close()

	e := Dial(path)
	defer e.Close()
	want := Event{Kind: Command, Transport: "ssh", PID: 42, Device: 7, Error: "ambiguous"}
	e.Emit(want)
	e.conn.Write([]byte("not json"))
	select {
	case got := <-received:
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("event not received")
	}
	select {
	case <-malformed:
	case <-time.After(2 * time.Second):
		t.Fatal("malformed datagram not reported")
	}
}

func TestEmitWithoutDaemonIsHarmless(t *testing.T) {
	e := Dial(filepath.Join(t.TempDir(), "missing.sock"))
	e.Emit(Event{Kind: SessionOpen, Transport: "ssh", PID: 1})
	e.Close()
}
