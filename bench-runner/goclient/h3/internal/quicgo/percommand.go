package quicgo

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// handshake is how a connection per command opens.
type handshake int

const (
	// full: no ticket kept or offered (a fresh tls.Config without a session cache).
	full handshake = iota
	// resumption: the newest ticket offered, no early data; the server must accept it.
	resumption
	// earlyData: the newest ticket offered and the request sent in 0-RTT with the
	// ClientHello; the server must accept the early data.
	earlyData
)

// PerCommand opens a new connection for each command: GET /admin/exec/<command>, then
// close. Phases per command: tls_handshake (the QUIC handshake: TLS 1.3 in QUIC's CRYPTO
// frames, with no TCP connect before it), send_request, receive_headers, receive_body,
// close. With early data the request leaves before the handshake completes, so the
// handshake overlaps send_request and receive_headers and has no phase of its own.
type PerCommand struct {
	c       *client
	kind    handshake
	tickets *tickets
	opened  []report.Connection
}

// NewPerCommand keeps what every iteration needs. A kind that resumes first fetches a
// ticket on a connection of its own (reported with ready, not measured).
func NewPerCommand(j job.Job, creds job.Credentials, kind handshake) (*PerCommand, error) {
	p := &PerCommand{c: newClient(j, creds), kind: kind}
	if kind == full {
		return p, nil
	}
	p.tickets = newTickets()
	if err := p.fetchTicket(); err != nil {
		return nil, fmt.Errorf("session ticket: %w", err)
	}
	return p, nil
}

func (p *PerCommand) fetchTicket() error {
	cn, err := p.c.dial(p.tlsConfig(), false)
	if err != nil {
		return err
	}
	ticket, err := p.tickets.await(p.c.timeout)
	p.opened = append(p.opened, cn.negotiated())
	if closeErr := cn.close(); err == nil {
		err = closeErr
	}
	if err != nil || p.kind != earlyData {
		return err
	}
	early, err := allowsEarlyData(ticket)
	if err == nil && !early {
		err = errors.New("the server's ticket does not allow early data")
	}
	return err
}

// TakeRecovery is the loss recovery of the connections since the previous call.
func (p *PerCommand) TakeRecovery() report.Recovery { return p.c.recovery.TakeRecovery() }

// Opened is the connection that fetched the first ticket, if any.
func (p *PerCommand) Opened() []report.Connection { return p.opened }

// Iterate runs one iteration.
func (p *PerCommand) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	for _, command := range commands {
		got, negotiated, err := p.one(command, phases)
		if negotiated != nil {
			result.Connections = append(result.Connections, *negotiated)
		}
		if err != nil {
			result.Err = err
			return result
		}
		result.Outputs = append(result.Outputs, got.body)
		result.Statuses = append(result.Statuses, got.status)
	}
	return result
}

// tlsConfig is a new configuration per connection: with the kept tickets when the kind
// resumes, else with no session cache at all.
func (p *PerCommand) tlsConfig() *tls.Config {
	if p.tickets == nil {
		return p.c.tlsConfig(nil)
	}
	return p.c.tlsConfig(p.tickets)
}

// one is one command on a connection of its own; negotiated is nil when none was opened.
func (p *PerCommand) one(command string, phases loop.Phases) (answer, *report.Connection, error) {
	early := p.kind == earlyData
	started := time.Now()
	cn, err := p.c.dial(p.tlsConfig(), early)
	if err != nil {
		return answer{}, nil, fmt.Errorf("%s: %w", command, err)
	}
	dialled := time.Since(started)
	if !early {
		phases.Add("tls_handshake", dialled)
	}
	got, err := p.c.get(cn, []string{command}, early)
	if err == nil {
		if early {
			// The ClientHello and the request leave in one flight: both are the sending.
			got.send += dialled
		}
		got.addTo(phases)
		err = p.check(cn)
	}
	negotiated := cn.negotiated()
	closeErr := phases.Measure("close", cn.close)
	if err == nil && closeErr != nil {
		err = fmt.Errorf("close: %w", closeErr)
	}
	if err != nil {
		err = fmt.Errorf("%s: %w", command, err)
	}
	return got, &negotiated, err
}

// check fails a connection that did not open as the kind requires.
func (p *PerCommand) check(cn *conn) error {
	switch p.kind {
	case resumption:
		if !cn.negotiated().Resumed {
			return errors.New("TLS session not resumed (no ticket accepted)")
		}
	case earlyData:
		ctx, cancel := context.WithTimeout(context.Background(), p.c.timeout)
		defer cancel()
		if err := cn.awaitHandshake(ctx); err != nil {
			return err
		}
		if !cn.negotiated().Used0RTT {
			return errors.New("0-RTT not used (the server did not accept early data)")
		}
	}
	return nil
}
