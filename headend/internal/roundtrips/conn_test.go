package roundtrips

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// scripted is a net.Conn whose reads return the queued chunks in order (an
// empty chunk: a read that returns no data, with errNothing).
type scripted struct {
	net.Conn
	reads   [][]byte
	written bytes.Buffer
}

var errNothing = errors.New("nothing to read")

func (s *scripted) Read(p []byte) (int, error) {
	if len(s.reads) == 0 {
		return 0, io.EOF
	}
	chunk := s.reads[0]
	s.reads = s.reads[1:]
	if len(chunk) == 0 {
		return 0, errNothing
	}
	return copy(p, chunk), nil
}

func (s *scripted) Write(p []byte) (int, error) { return s.written.Write(p) }

func TestCounting(t *testing.T) {
	steps := []struct {
		op   string // "w" writes data, "r" reads the next chunk
		data string
		want Counts
	}{
		{"w", "hello", Counts{RoundTrips: 1, BytesSent: 5}},
		{"r", "hi", Counts{RoundTrips: 2, BytesSent: 5, BytesReceived: 2}},
		// The rest of the reply: the same round trip.
		{"r", "there", Counts{RoundTrips: 2, BytesSent: 5, BytesReceived: 7}},
		// Two writes before the answer: one round trip.
		{"w", "a", Counts{RoundTrips: 2, BytesSent: 6, BytesReceived: 7}},
		{"w", "bc", Counts{RoundTrips: 2, BytesSent: 8, BytesReceived: 7}},
		// A read without data does not end the sending turn...
		{"r", "", Counts{RoundTrips: 2, BytesSent: 8, BytesReceived: 7}},
		// ...the next read with data does.
		{"r", "ok", Counts{RoundTrips: 3, BytesSent: 8, BytesReceived: 9}},
		// An empty write sends nothing and turns nothing.
		{"w", "", Counts{RoundTrips: 3, BytesSent: 8, BytesReceived: 9}},
		{"r", "unasked", Counts{RoundTrips: 3, BytesSent: 8, BytesReceived: 16}},
	}
	inner := &scripted{}
	for _, s := range steps {
		if s.op == "r" {
			inner.reads = append(inner.reads, []byte(s.data))
		}
	}
	c := New(inner, true)
	buf := make([]byte, 64)
	for i, s := range steps {
		switch s.op {
		case "w":
			if _, err := c.Write([]byte(s.data)); err != nil {
				t.Fatalf("step %d: write: %v", i, err)
			}
		case "r":
			if _, err := c.Read(buf); err != nil && !errors.Is(err, errNothing) {
				t.Fatalf("step %d: read: %v", i, err)
			}
		}
		if got := c.Counts(); got != s.want {
			t.Fatalf("step %d (%s %q): counts %+v, want %+v", i, s.op, s.data, got, s.want)
		}
	}
	if inner.written.String() != "helloabc" {
		t.Fatalf("written %q, want the bytes passed through", inner.written.String())
	}
}

func TestNotDialed(t *testing.T) {
	c := New(&scripted{reads: [][]byte{[]byte("banner")}}, false)
	if _, err := c.Read(make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Counts(), (Counts{BytesReceived: 6}); got != want {
		t.Fatalf("counts %+v, want %+v (no connect, no write: no round trip)", got, want)
	}
}

func TestSubAdd(t *testing.T) {
	before := Counts{RoundTrips: 4, BytesSent: 100, BytesReceived: 300}
	after := Counts{RoundTrips: 7, BytesSent: 160, BytesReceived: 500}
	delta := after.Sub(before)
	if want := (Counts{RoundTrips: 3, BytesSent: 60, BytesReceived: 200}); delta != want {
		t.Fatalf("Sub: %+v, want %+v", delta, want)
	}
	if got := before.Add(delta); got != after {
		t.Fatalf("Add: %+v, want %+v", got, after)
	}
}

// TestPingPong runs a request-reply conversation over a real pipe, reading on
// one goroutine and writing on another as an SSH client does: every exchange
// is one round trip, and the race detector sees the counters shared.
func TestPingPong(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	const exchanges = 50
	go func() {
		buf := make([]byte, 4)
		for range exchanges {
			if _, err := io.ReadFull(server, buf); err != nil {
				return
			}
			if _, err := server.Write([]byte("pong")); err != nil {
				return
			}
		}
	}()
	c := New(client, false)
	defer c.Close()
	replies := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(replies)
		buf := make([]byte, 4)
		for range exchanges {
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Error(err)
				return
			}
			replies <- struct{}{}
		}
	})
	for range exchanges {
		if _, err := c.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, ok := <-replies; !ok {
			t.Fatal("the reader stopped")
		}
	}
	wg.Wait()
	want := Counts{RoundTrips: exchanges, BytesSent: 4 * exchanges, BytesReceived: 4 * exchanges}
	if got := c.Counts(); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
}
