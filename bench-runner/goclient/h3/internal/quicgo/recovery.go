package quicgo

import (
	"context"
	"sync"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"

	"transportlab/goclient/internal/report"
)

// recoveryCounter counts the loss recovery of every connection a job opens, from the qlog
// events quic-go records for each one (quic.Config.Tracer); nothing is written out. The
// counts are taken between iterations (loop.Recovering).
type recoveryCounter struct {
	mu     sync.Mutex
	counts report.Recovery
}

// tracer is the quic.Config.Tracer hook: a fresh trace per connection, counting into c.
func (c *recoveryCounter) tracer(context.Context, bool, quic.ConnectionID) qlogwriter.Trace {
	return &connectionTrace{counter: c, highest: [numberSpaces]int64{-1, -1, -1}, overall: -1}
}

// TakeRecovery returns the counts since the previous call.
func (c *recoveryCounter) TakeRecovery() report.Recovery {
	c.mu.Lock()
	defer c.mu.Unlock()
	taken := c.counts
	c.counts = report.Recovery{}
	return taken
}

func (c *recoveryCounter) add(change func(*report.Recovery)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	change(&c.counts)
}

// Packet-number spaces (RFC 9000, 12.3): 0-RTT and 1-RTT packets share the application one.
const (
	initialSpace = iota
	handshakeSpace
	applicationSpace
	numberSpaces
)

func numberSpace(t qlog.PacketType) (int, bool) {
	switch t {
	case qlog.PacketTypeInitial:
		return initialSpace, true
	case qlog.PacketTypeHandshake:
		return handshakeSpace, true
	case qlog.PacketType0RTT, qlog.PacketType1RTT:
		return applicationSpace, true
	}
	return 0, false
}

// connectionTrace is one connection's trace, and the only recorder of it: quic-go records
// from several goroutines, hence the lock. It keeps what counting needs across events: the
// highest packet number received from the server, in each space and over all of them, and
// the probe-timeout count quic-go last reported.
type connectionTrace struct {
	counter  *recoveryCounter
	mu       sync.Mutex
	highest  [numberSpaces]int64
	overall  int64
	perSpace bool
	ptoCount uint32
}

func (t *connectionTrace) AddProducer() qlogwriter.Recorder { return t }

func (t *connectionTrace) Close() error { return nil }

func (t *connectionTrace) RecordEvent(event qlogwriter.Event) {
	switch e := event.(type) {
	case qlog.PacketSent:
		if ackEliciting(e.Frames) {
			t.counter.add(func(r *report.Recovery) { r.SentAckEliciting++ })
		}
	case qlog.PacketReceived:
		t.received(e)
	case qlog.PacketLost:
		if e.IsMTUProbePacket {
			return // a probe of a larger size, expected to be lost: no data to repair
		}
		initial := e.Header.PacketType == qlog.PacketTypeInitial
		t.counter.add(func(r *report.Recovery) {
			r.Lost++
			if initial {
				r.InitialLost++
			}
		})
	case qlog.SpuriousLoss:
		t.counter.add(func(r *report.Recovery) { r.Spurious++ })
	case qlog.PTOCountUpdated:
		t.probeTimeouts(e.PTOCount)
	}
}

// received counts an ack-eliciting packet from the server, and the packet numbers the server
// left out before it: numbers rise by one per packet sent, so a gap is a packet lost on the
// way (or a number quic-go's server skipped against optimistic ACKs). quic-go numbers a
// connection's packets in one sequence across the Initial, Handshake and application spaces;
// a peer whose first packet in a later space starts again from a number already seen numbers
// each space on its own (RFC 9000, 12.3 allows both), and its gaps are counted per space.
// A packet numbered below the highest received arrived late: reordered, not lost.
func (t *connectionTrace) received(e qlog.PacketReceived) {
	space, ok := numberSpace(e.Header.PacketType)
	if !ok {
		return
	}
	number := int64(e.Header.PacketNumber)
	t.mu.Lock()
	if t.highest[space] < 0 && space != initialSpace && number <= t.overall {
		t.perSpace = true
	}
	highest := t.overall
	if t.perSpace {
		highest = t.highest[space]
	}
	missing, late := 0, 0
	if number > highest {
		missing = int(number - highest - 1)
	} else if number < highest {
		late = 1
	}
	t.highest[space] = max(t.highest[space], number)
	t.overall = max(t.overall, number)
	t.mu.Unlock()
	eliciting := ackEliciting(e.Frames)
	t.counter.add(func(r *report.Recovery) {
		r.MissingIn += missing
		r.LateIn += late
		if eliciting {
			r.ReceivedAckEliciting++
		}
	})
}

// probeTimeouts counts the probe timeouts that fired: quic-go reports its PTO count on each
// change, one more per timeout and back to zero once an acknowledgment arrives.
func (t *connectionTrace) probeTimeouts(count uint32) {
	t.mu.Lock()
	fired := 0
	if count > t.ptoCount {
		fired = int(count - t.ptoCount)
	}
	t.ptoCount = count
	t.mu.Unlock()
	if fired > 0 {
		t.counter.add(func(r *report.Recovery) { r.ProbeTimeouts += fired })
	}
}

// ackEliciting tells whether a packet's frames make its loss matter (RFC 9002, 2): any frame
// but ACK, PADDING and CONNECTION_CLOSE (quic-go's qlog leaves PADDING out).
func ackEliciting(frames []qlog.Frame) bool {
	for _, f := range frames {
		switch f.Frame.(type) {
		case *qlog.AckFrame, qlog.AckFrame, *qlog.ConnectionCloseFrame, qlog.ConnectionCloseFrame:
		default:
			return true
		}
	}
	return false
}
