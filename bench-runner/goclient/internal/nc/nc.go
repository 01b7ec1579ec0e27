// Package nc is the NETCONF modes with scrapligo's netconf driver over its standard
// transport (golang.org/x/crypto/ssh, subsystem netconf). The driver waits for each reply
// before the next RPC.
package nc

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/scrapli/scrapligo/driver/netconf"
	"github.com/scrapli/scrapligo/driver/opoptions"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/response"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/ncmsg"
	"transportlab/goclient/internal/report"
)

// Transport is scrapligo's transport plugin the program uses.
const Transport = "standard"

// Open connects, opens the netconf subsystem and exchanges hellos; framing is the job's.
func Open(j job.Job, creds job.Credentials) (*netconf.Driver, error) {
	framing := j.Framing
	if framing == "" {
		framing = "1.1"
	}
	d, err := netconf.NewDriver(
		j.Host,
		options.WithTransportType(Transport),
		options.WithPort(j.Port),
		options.WithAuthUsername(creds.Username),
		options.WithAuthPassword(creds.Password),
		options.WithAuthNoStrictKey(),
		options.WithTimeoutSocket(j.Timeout()),
		options.WithTimeoutOps(j.Timeout()),
		options.WithNetconfPreferredVersion(framing),
	)
	if err != nil {
		return nil, err
	}
	if err := d.Open(); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return d, nil
}

// reply is a response as the runner checks it; an error for a reply the driver could not
// parse (its framing), while an <rpc-error> is left for the runner to report.
func reply(r *response.NetconfResponse, err error, expect string) (report.Reply, error) {
	if err != nil {
		return report.Reply{}, err
	}
	if r.Failed != nil && !bytes.Contains(r.RawResult, []byte("rpc-error")) {
		return report.Reply{}, fmt.Errorf("reply: %w", r.Failed)
	}
	return report.Reply{MessageID: ncmsg.MessageID(r.Input), Expect: expect, Text: r.Result}, nil
}

const (
	expectData = "<data"
	expectOK   = "<ok"
)

// gets sends one <get> per command (the command text itself is not sent), each after the
// previous reply.
func gets(d *netconf.Driver, j job.Job, commands []string) ([]report.Reply, error) {
	replies := make([]report.Reply, 0, len(commands))
	for range commands {
		r, err := d.Get(ncmsg.PayloadFilter(j.ReplyBytes))
		got, err := reply(r, err, expectData)
		if err != nil {
			return replies, fmt.Errorf("get: %w", err)
		}
		replies = append(replies, got)
	}
	return replies, nil
}

// FreshSession: per iteration Open (connect), one <get> per command (rpcs), Close (close).
type FreshSession struct {
	j     job.Job
	creds job.Credentials
}

// NewFreshSession keeps what every iteration needs; it opens nothing.
func NewFreshSession(j job.Job, creds job.Credentials) *FreshSession {
	return &FreshSession{j: j, creds: creds}
}

// Iterate runs one iteration.
func (f *FreshSession) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	var d *netconf.Driver
	err := phases.Measure("connect", func() (err error) {
		d, err = Open(f.j, f.creds)
		return err
	})
	if err != nil {
		return loop.Result{Err: err, Phases: phases}
	}
	var replies []report.Reply
	err = phases.Measure("rpcs", func() (err error) {
		replies, err = gets(d, f.j, commands)
		return err
	})
	closeErr := phases.Measure("close", d.Close)
	if err == nil && closeErr != nil {
		err = fmt.Errorf("close: %w", closeErr)
	}
	return loop.Result{Replies: replies, Phases: phases, Err: err}
}

// ReuseSession: one session opened before the warm-up; one <get> per command.
type ReuseSession struct {
	d *netconf.Driver
	j job.Job
}

// NewReuseSession opens the kept session.
func NewReuseSession(j job.Job, creds job.Credentials) (*ReuseSession, error) {
	d, err := Open(j, creds)
	if err != nil {
		return nil, err
	}
	return &ReuseSession{d: d, j: j}, nil
}

// Iterate runs one iteration.
func (s *ReuseSession) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	var replies []report.Reply
	err := phases.Measure("rpcs", func() (err error) {
		replies, err = gets(s.d, s.j, commands)
		return err
	})
	return loop.Result{Replies: replies, Phases: phases, Err: err}
}

// Close ends the kept session.
func (s *ReuseSession) Close() error { return s.d.Close() }

// EditCommit: one session kept; per command an <edit-config> (merge into the candidate) of
// Loopback0's description, each after the previous <ok/>, then one <commit>. The running
// description is read when it opens and restored (edit and commit) by Close, neither
// measured.
type EditCommit struct {
	d        *netconf.Driver
	edits    int
	original *string
}

// NewEditCommit opens the kept session and reads the description to restore.
func NewEditCommit(j job.Job, creds job.Credentials) (*EditCommit, error) {
	d, err := Open(j, creds)
	if err != nil {
		return nil, err
	}
	r, err := d.GetConfig("running", opoptions.WithFilter(ncmsg.DescriptionFilter()))
	got, err := reply(r, err, expectData)
	var original *string
	if err == nil {
		original, err = ncmsg.Description(got.Text)
	}
	if err != nil {
		_ = d.Close()
		return nil, fmt.Errorf("read description: %w", err)
	}
	return &EditCommit{d: d, original: original}, nil
}

func (e *EditCommit) edit(description *string, replies []report.Reply) ([]report.Reply, error) {
	r, err := e.d.EditConfig("candidate", ncmsg.DescriptionConfig(description))
	got, err := reply(r, err, expectOK)
	if err != nil {
		return replies, fmt.Errorf("edit-config: %w", err)
	}
	return append(replies, got), nil
}

func (e *EditCommit) commit(replies []report.Reply) ([]report.Reply, error) {
	r, err := e.d.Commit()
	got, err := reply(r, err, expectOK)
	if err != nil {
		return replies, fmt.Errorf("commit: %w", err)
	}
	return append(replies, got), nil
}

// Iterate runs one iteration.
func (e *EditCommit) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	var replies []report.Reply
	err := phases.Measure("rpcs", func() (err error) {
		for range commands {
			e.edits++
			text := ncmsg.EditText(e.edits)
			if replies, err = e.edit(&text, replies); err != nil {
				return err
			}
		}
		replies, err = e.commit(replies)
		return err
	})
	return loop.Result{Replies: replies, Phases: phases, Err: err}
}

// Close restores the description and ends the session.
func (e *EditCommit) Close() error {
	replies, err := e.edit(e.original, nil)
	if err == nil {
		replies, err = e.commit(replies)
	}
	if err == nil {
		err = failedReply(replies)
	}
	if closeErr := e.d.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("restore description: %w", err)
	}
	return nil
}

// failedReply is an error for the first reply that is not what it should be (during the
// restore, which the runner does not check).
func failedReply(replies []report.Reply) error {
	for _, r := range replies {
		if !strings.Contains(r.Text, r.Expect) || strings.Contains(r.Text, "rpc-error") {
			return fmt.Errorf("reply to message-id %d without %s>", r.MessageID, r.Expect)
		}
	}
	return nil
}
