package quicgo

import (
	"errors"
	"fmt"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// Headend is a head-end mode: per iteration one POST /devices/<device>/exec?ssh=<use> with
// every command to the head-end (the job's host and port, the head-end's credentials), on a
// new QUIC connection (a full handshake, no ticket kept, as h3/fresh-conn) or on one kept.
// The one output is the head-end's answer as it came (JSON: the outputs, the exit statuses
// and what the LAN hop took), for the runner to read. No phases: the runner splits the
// iteration's time by hop from that answer, as it does for its HTTPS client of the head-end.
type Headend struct {
	c    *client
	path string
	// kept is the connection every iteration uses; nil: a new one per iteration.
	kept   *conn
	opened []report.Connection
}

// NewHeadend opens the kept connection when keep is set (full handshake, not measured).
func NewHeadend(j job.Job, creds job.Credentials, ssh sshUse, keep bool) (*Headend, error) {
	if j.Device == "" {
		return nil, errors.New("job: no device (a head-end mode names the device to run the commands on)")
	}
	h := &Headend{c: newClient(j, creds), path: headendPath(j.Device, ssh)}
	if !keep {
		return h, nil
	}
	cn, err := h.c.dial(h.c.tlsConfig(nil), false)
	if err != nil {
		return nil, err
	}
	h.kept = cn
	h.opened = []report.Connection{cn.negotiated()}
	return h, nil
}

// Opened is the kept connection, if any.
func (h *Headend) Opened() []report.Connection { return h.opened }

// Iterate runs one iteration.
func (h *Headend) Iterate(commands []string) loop.Result {
	if h.kept != nil {
		return h.post(h.kept, commands)
	}
	cn, err := h.c.dial(h.c.tlsConfig(nil), false)
	if err != nil {
		return loop.Result{Err: err}
	}
	result := h.post(cn, commands)
	result.Connections = []report.Connection{cn.negotiated()}
	if err := cn.close(); err != nil && result.Err == nil {
		result.Err = fmt.Errorf("close: %w", err)
	}
	return result
}

func (h *Headend) post(cn *conn, commands []string) loop.Result {
	got, err := h.c.postCommands(cn, h.path, commands)
	if err != nil {
		return loop.Result{Err: fmt.Errorf("POST %s: %w", h.path, err)}
	}
	return loop.Result{Outputs: []string{got.body}, Statuses: []int{got.status}}
}

// TakeRecovery is the loss recovery of the connections since the previous call.
func (h *Headend) TakeRecovery() report.Recovery { return h.c.recovery.TakeRecovery() }

// Close closes the kept connection, if any.
func (h *Headend) Close() error {
	if h.kept == nil {
		return nil
	}
	return h.kept.close()
}
