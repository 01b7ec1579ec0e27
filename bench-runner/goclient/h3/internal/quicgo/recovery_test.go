package quicgo

import (
	"context"
	"testing"

	"github.com/quic-go/quic-go/qlog"
	"github.com/quic-go/quic-go/qlogwriter"

	"transportlab/goclient/internal/report"
)

func header(t qlog.PacketType, number int64) qlog.PacketHeader {
	return qlog.PacketHeader{PacketType: t, PacketNumber: qlog.PacketNumber(number)}
}

var (
	stream = []qlog.Frame{{Frame: &qlog.StreamFrame{StreamID: 0, Length: 10}}}
	ack    = []qlog.Frame{{Frame: &qlog.AckFrame{}}}
)

func TestTraceCountsFromQlogEvents(t *testing.T) {
	c := &recoveryCounter{}
	trace := c.tracer(context.Background(), true, qlog.ConnectionID{})
	recorder := trace.AddProducer()
	events := []qlogwriter.Event{
		qlog.PacketSent{Header: header(qlog.PacketTypeInitial, 0), Frames: []qlog.Frame{{Frame: &qlog.CryptoFrame{Length: 300}}}},
		qlog.PacketSent{Header: header(qlog.PacketType1RTT, 0), Frames: ack}, // ACK only: not at risk
		qlog.PacketSent{Header: header(qlog.PacketType1RTT, 1), Frames: stream},
		// The server's Initial space from 0; in its 1-RTT space 2, 4 and 5 are missing when 6
		// arrives, then 4 arrives late.
		qlog.PacketReceived{Header: header(qlog.PacketTypeInitial, 0), Frames: ack},
		qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 0), Frames: stream},
		qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 1), Frames: stream},
		qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 3), Frames: stream},
		qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 6), Frames: ack},
		qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 4), Frames: stream},
		qlog.PacketLost{Header: header(qlog.PacketTypeInitial, 0)},
		qlog.PacketLost{Header: header(qlog.PacketType1RTT, 1)},
		qlog.PacketLost{Header: header(qlog.PacketType1RTT, 7), IsMTUProbePacket: true},
		qlog.SpuriousLoss{PacketNumber: 1},
		// Two timeouts in a row, an acknowledgment, a third.
		qlog.PTOCountUpdated{PTOCount: 1},
		qlog.PTOCountUpdated{PTOCount: 2},
		qlog.PTOCountUpdated{PTOCount: 0},
		qlog.PTOCountUpdated{PTOCount: 1},
	}
	for _, e := range events {
		recorder.RecordEvent(e)
	}
	want := report.Recovery{
		SentAckEliciting: 2, ReceivedAckEliciting: 4, Lost: 2, InitialLost: 1,
		ProbeTimeouts: 3, Spurious: 1, MissingIn: 3, LateIn: 1,
	}
	if got := c.TakeRecovery(); got != want {
		t.Fatalf("counted %+v, want %+v", got, want)
	}
	if got := c.TakeRecovery(); got != (report.Recovery{}) {
		t.Fatalf("taken twice: %+v", got)
	}
}

func TestOneSequenceAcrossSpacesAsQuicGoNumbersThem(t *testing.T) {
	c := &recoveryCounter{}
	recorder := c.tracer(context.Background(), true, qlog.ConnectionID{}).AddProducer()
	// Initial 0, Handshake 1, then the application space from 2, with 4 lost; an ACK in the
	// Initial space sent after them (6) is no gap in it.
	for _, p := range []struct {
		t qlog.PacketType
		n int64
	}{{qlog.PacketTypeInitial, 0}, {qlog.PacketTypeHandshake, 1}, {qlog.PacketType1RTT, 2}, {qlog.PacketType1RTT, 3}, {qlog.PacketType1RTT, 5}, {qlog.PacketTypeInitial, 6}} {
		recorder.RecordEvent(qlog.PacketReceived{Header: header(p.t, p.n), Frames: stream})
	}
	if got := c.TakeRecovery(); got.MissingIn != 1 || got.LateIn != 0 {
		t.Fatalf("one sequence counted as %+v", got)
	}
}

func TestEachConnectionNumbersItsOwnPackets(t *testing.T) {
	c := &recoveryCounter{}
	for range 2 {
		recorder := c.tracer(context.Background(), true, qlog.ConnectionID{}).AddProducer()
		recorder.RecordEvent(qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 0), Frames: stream})
		recorder.RecordEvent(qlog.PacketReceived{Header: header(qlog.PacketType1RTT, 1), Frames: stream})
	}
	if got := c.TakeRecovery(); got.MissingIn != 0 || got.LateIn != 0 || got.ReceivedAckEliciting != 4 {
		t.Fatalf("two connections counted as %+v", got)
	}
}

// A lost response: the client sees a gap in the server's packet numbers once the server sends
// it again. A lost request: the client repairs it by a probe timeout, or declares it lost once
// a later packet is acknowledged (either may come first; the other can follow the iteration).
func TestRecoveryCountsLossesOnTheDevice(t *testing.T) {
	d := startDevice(t, true)
	k, err := NewKept(d.job(), creds, oneByOne)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	iterate(t, k, commands[:1])
	clean := k.TakeRecovery()
	if clean.SentAckEliciting < 1 || clean.ReceivedAckEliciting < 1 {
		t.Fatalf("the handshake and a request counted as %+v", clean)
	}

	d.flights.dropOut.Store(1)
	iterate(t, k, commands[:1])
	if got := k.TakeRecovery(); got.MissingIn < 1 || got.ReceivedAckEliciting < 1 {
		t.Fatalf("a lost response counted as %+v", got)
	}

	d.flights.dropIn.Store(1)
	iterate(t, k, commands[:1])
	if got := k.TakeRecovery(); got.Lost+got.ProbeTimeouts < 1 {
		t.Fatalf("a lost request counted as %+v", got)
	}
}
