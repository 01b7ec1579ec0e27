// Package roundtrips counts, on one connection, the round trips and the
// bytes each way, as the head-end reports them for its LAN hop.
//
// A round trip is counted each time a read returns data after one or more
// writes since the previous read that returned data: the conversation turned
// from sending to receiving. Data that arrives while nothing was sent (the
// rest of a reply, or a message the peer sends unasked) is not a new round
// trip. The TCP connect, which the wrapper does not see, is one more when the
// caller says the connection was just dialed.
package roundtrips

import (
	"net"
	"sync"
)

// Counts is what a connection carried. Byte counts are payload bytes as the
// socket API saw them (no TCP/IP headers).
type Counts struct {
	RoundTrips    int64
	BytesSent     int64
	BytesReceived int64
}

// Sub is what was counted since an earlier reading of the same connection.
func (c Counts) Sub(earlier Counts) Counts {
	return Counts{
		RoundTrips:    c.RoundTrips - earlier.RoundTrips,
		BytesSent:     c.BytesSent - earlier.BytesSent,
		BytesReceived: c.BytesReceived - earlier.BytesReceived,
	}
}

// Add is both counts together.
func (c Counts) Add(other Counts) Counts {
	return Counts{
		RoundTrips:    c.RoundTrips + other.RoundTrips,
		BytesSent:     c.BytesSent + other.BytesSent,
		BytesReceived: c.BytesReceived + other.BytesReceived,
	}
}

// Conn wraps a net.Conn and counts what passes through Read and Write. Reads
// and writes may run on different goroutines (an SSH client reads on one and
// writes on others), hence the mutex.
type Conn struct {
	net.Conn

	mu     sync.Mutex
	counts Counts
	// sending is true once something was written since the last read that
	// returned data.
	sending bool
}

// New wraps conn. dialed counts the TCP connect (SYN, SYN-ACK) as the first
// round trip; false for a connection whose setup is not to be counted.
func New(conn net.Conn, dialed bool) *Conn {
	c := &Conn{Conn: conn}
	if dialed {
		c.counts.RoundTrips = 1
	}
	return c
}

// Read counts the bytes and, when this read answers a write, a round trip.
func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.counts.BytesReceived += int64(n)
		if c.sending {
			c.counts.RoundTrips++
			c.sending = false
		}
		c.mu.Unlock()
	}
	return n, err
}

// Write marks the conversation as sending before the bytes leave: the reply
// they cause may be read on another goroutine before this Write returns, and
// must still count as the answer to it.
func (c *Conn) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.mu.Lock()
		c.sending = true
		c.mu.Unlock()
	}
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.mu.Lock()
		c.counts.BytesSent += int64(n)
		c.mu.Unlock()
	}
	return n, err
}

// Counts is what was counted so far.
func (c *Conn) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}
