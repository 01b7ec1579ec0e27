package quicgo

import (
	"fmt"
	"sync"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// shape is how an iteration's commands travel on the kept connection.
type shape int

const (
	// oneByOne: a GET per command, each after the previous response.
	oneByOne shape = iota
	// batch: one GET whose path carries every command.
	batch
	// concurrent: a GET per command, all in flight at once, each on a stream of its own.
	concurrent
)

// Kept is one connection opened before the first iteration (full handshake, not measured)
// and used by every iteration. Phases: send_request, receive_headers, receive_body, except
// for concurrent requests, whose steps overlap and would add up to more than the wall time.
type Kept struct {
	c      *client
	cn     *conn
	shape  shape
	opened report.Connection
}

// NewKept opens the kept connection.
func NewKept(j job.Job, creds job.Credentials, s shape) (*Kept, error) {
	c := newClient(j, creds)
	cn, err := c.dial(c.tlsConfig(nil), false)
	if err != nil {
		return nil, err
	}
	return &Kept{c: c, cn: cn, shape: s, opened: cn.negotiated()}, nil
}

// Opened is the kept connection.
func (k *Kept) Opened() []report.Connection { return []report.Connection{k.opened} }

// Iterate runs one iteration.
func (k *Kept) Iterate(commands []string) loop.Result {
	switch k.shape {
	case batch:
		return k.sequential([][]string{commands})
	case concurrent:
		return k.concurrent(commands)
	default:
		requests := make([][]string, len(commands))
		for i, command := range commands {
			requests[i] = []string{command}
		}
		return k.sequential(requests)
	}
}

func (k *Kept) sequential(requests [][]string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	for _, commands := range requests {
		got, err := k.c.get(k.cn, commands, false)
		if err != nil {
			result.Err = fmt.Errorf("%s: %w", label(commands), err)
			return result
		}
		got.addTo(phases)
		result.Outputs = append(result.Outputs, got.body)
		result.Statuses = append(result.Statuses, got.status)
	}
	return result
}

func (k *Kept) concurrent(commands []string) loop.Result {
	answers := make([]answer, len(commands))
	errs := make([]error, len(commands))
	var wg sync.WaitGroup
	for i, command := range commands {
		wg.Go(func() { answers[i], errs[i] = k.c.get(k.cn, []string{command}, false) })
	}
	wg.Wait()
	result := loop.Result{}
	for i, got := range answers {
		if errs[i] != nil {
			result.Err = fmt.Errorf("%s: %w", commands[i], errs[i])
			return result
		}
		result.Outputs = append(result.Outputs, got.body)
		result.Statuses = append(result.Statuses, got.status)
	}
	return result
}

// TakeRecovery is the kept connection's loss recovery since the previous call.
func (k *Kept) TakeRecovery() report.Recovery { return k.c.recovery.TakeRecovery() }

// Close closes the kept connection.
func (k *Kept) Close() error { return k.cn.close() }
