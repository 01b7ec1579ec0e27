// Package report writes what the program tells the runner: one JSON object per line on
// standard output. Iteration boundaries are CLOCK_REALTIME nanoseconds (time.Now's wall
// reading), the clock the kernel stamps captured packets with and the runner's
// time.time_ns() reads; the duration comes from monotonic readings taken just outside
// them (Span).
package report

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Events of a line.
const (
	EventReady     = "ready"
	EventIteration = "iteration"
	EventDone      = "done"
	EventError     = "error"
)

// Reply is one NETCONF reply with the message-id its RPC carried and what a successful
// reply contains ("<data" or "<ok"); the runner checks it as it checks its own clients'.
type Reply struct {
	MessageID int    `json:"message_id"`
	Expect    string `json:"expect"`
	Text      string `json:"text"`
}

// Connection is what one connection negotiated, as the client library reports it (TLS 1.3
// inside QUIC travels encrypted): the TLS version, cipher suite and key-exchange group by
// their IANA code points (the runner names them as it names those it reads on the wire),
// the ALPN protocol, whether a session ticket was accepted, and whether the server accepted
// the early data (0-RTT) sent on it.
type Connection struct {
	TLSVersion  uint16 `json:"tls_version"`
	CipherSuite uint16 `json:"cipher_suite"`
	Group       uint16 `json:"group,omitempty"`
	ALPN        string `json:"alpn"`
	Resumed     bool   `json:"resumed"`
	Used0RTT    bool   `json:"used_0rtt"`
}

// Recovery is what a QUIC client's loss recovery did during one iteration, as the library
// records it: QUIC's packet numbers and acknowledgments travel encrypted, so a capture cannot
// count them. Counted from the client's side: the ack-eliciting packets it sent and received
// (those whose loss must be repaired), its own packets it declared lost (their frames go out
// again in new packets), of those its Initial ones (its first flight sent again), its probe
// timeouts and the losses it later found spurious; and, for the server's packets, the numbers
// missing from the sequence it received (each a lost packet or a number the server skipped on
// purpose) and the packets that arrived after a higher-numbered one.
type Recovery struct {
	SentAckEliciting     int `json:"sent_ack_eliciting"`
	ReceivedAckEliciting int `json:"received_ack_eliciting"`
	Lost                 int `json:"lost"`
	InitialLost          int `json:"initial_lost"`
	ProbeTimeouts        int `json:"probe_timeouts"`
	Spurious             int `json:"spurious"`
	MissingIn            int `json:"missing_in"`
	LateIn               int `json:"late_in"`
}

// Line is one report. Fields not meaningful for an event are left out.
type Line struct {
	Event   string `json:"event"`
	Client  string `json:"client,omitempty"`
	Version string `json:"version,omitempty"`
	Index   int    `json:"index,omitempty"`
	Warmup  bool   `json:"warmup,omitempty"`
	StartNs int64  `json:"start_ns,omitempty"`
	EndNs   int64  `json:"end_ns,omitempty"`
	WallNs  int64  `json:"wall_ns,omitempty"`
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	// Outputs: one per command (CLI), or per HTTP request with its status in Statuses.
	// Replies: every NETCONF reply, in order.
	Outputs  []string           `json:"outputs,omitempty"`
	Statuses []int              `json:"statuses,omitempty"`
	Replies  []Reply            `json:"replies,omitempty"`
	Bytes    int                `json:"output_bytes,omitempty"`
	Phases   map[string]float64 `json:"phases_ms,omitempty"`
	// Connections opened since the previous line (ready: those opened before it).
	Connections []Connection `json:"connections,omitempty"`
	// Recovery: a QUIC client's, for the iteration (null for other clients).
	Recovery *Recovery `json:"recovery,omitempty"`
}

// Span is an iteration's boundaries, read in this order: Begin, Start, the iteration, End,
// Finish. The duration is Begin to Finish on the monotonic clock; Start and End, read inside
// them, are the boundaries on CLOCK_REALTIME, so the span the runner cuts the captured
// packets at is never longer than the duration (the two clocks advance alike; should the
// realtime clock step, the runner cuts the span at the duration). One time.Now reads both
// clocks in an order of its own: taking one clock from each of two readings fixes the order.
type Span struct {
	Begin, Start, End, Finish time.Time
}

// Apply sets the line's boundaries and duration from the span.
func (s Span) Apply(l *Line) {
	l.StartNs = s.Start.UnixNano()
	l.EndNs = s.End.UnixNano()
	l.WallNs = int64(s.Finish.Sub(s.Begin))
}

// Writer writes lines, each flushed whole.
type Writer struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewWriter writes to w (the program's standard output).
func NewWriter(w io.Writer) *Writer {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Writer{enc: enc}
}

// Write encodes one line (Encode ends it with a newline).
func (w *Writer) Write(l Line) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enc.Encode(l)
}
