// Package sshpool runs a request's commands on a device over SSH, on a
// connection dialed for the request (fresh) or kept between requests
// (pooled), and says what that cost on the LAN: connect and command times,
// round trips and bytes, counted on the connection itself.
//
// Host keys are trusted on first use, per device address, in memory: lab
// devices generate their keys when their container is created, so no key
// can be known in advance, and a head-end restart forgets them together with
// the devices it last saw. What the check still catches is a key that
// changes under a running head-end: a different machine answering at a
// known address.
package sshpool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"transportlab/headend/internal/roundtrips"
)

// Observer is told about dials and the pool's size (the metrics).
type Observer interface {
	Dialed(ok bool)
	IdleConnections(n int)
}

// Config is how the pool reaches devices.
type Config struct {
	Port           int
	User, Password string
	// DialTimeout bounds the TCP connect and the SSH handshake together.
	DialTimeout time.Duration
	// MaxIdle is how many idle connections are kept per device.
	MaxIdle  int
	Observer Observer
}

// Result is one request's commands and what they cost on the LAN.
type Result struct {
	Outputs      []string
	ExitStatuses []int
	// Reused is true when a pooled connection served the request.
	Reused bool
	// Connect is the dial and SSH handshake; zero when Reused.
	Connect time.Duration
	// Commands is from the first session's opening to the last one's end.
	Commands time.Duration
	// LAN is what this request sent and received, whoever dialed.
	LAN roundtrips.Counts
}

// Pool holds idle SSH connections per device address.
type Pool struct {
	cfg      Config
	client   *ssh.ClientConfig
	hostKeys hostKeys

	mu     sync.Mutex
	idle   map[string][]*conn
	nIdle  int
	closed bool
}

type conn struct {
	client  *ssh.Client
	counter *roundtrips.Conn
}

func (c *conn) close() { c.client.Close() }

// New returns an empty pool.
func New(cfg Config) *Pool {
	p := &Pool{cfg: cfg, idle: map[string][]*conn{}, hostKeys: hostKeys{known: map[string]ssh.PublicKey{}}}
	p.client = &ssh.ClientConfig{
		User:            cfg.User,
		Auth:            []ssh.AuthMethod{ssh.Password(cfg.Password)},
		HostKeyCallback: p.hostKeys.check,
	}
	return p
}

// Fresh runs the commands on a connection dialed for them and closed after.
func (p *Pool) Fresh(ctx context.Context, device string, commands []string) (Result, error) {
	return p.dialAndRun(ctx, device, commands, false)
}

// Pooled runs the commands on an idle connection to the device, or on one
// dialed for them, and keeps the connection afterwards. An idle connection
// that died meanwhile (the device closed it, or restarted) shows when its
// first session cannot be opened: it is dropped and one dial made instead.
// A failure after that fails the request.
func (p *Pool) Pooled(ctx context.Context, device string, commands []string) (Result, error) {
	c := p.take(device)
	if c == nil {
		return p.dialAndRun(ctx, device, commands, true)
	}
	before := c.counter.Counts()
	stop := context.AfterFunc(ctx, c.close)
	started := time.Now()
	first, err := c.client.NewSession()
	if err != nil {
		stop()
		c.close()
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%s: %w", device, ctx.Err())
		}
		res, err := p.dialAndRun(ctx, device, commands, true)
		// What the dead connection sent was sent on the LAN all the same.
		res.LAN = res.LAN.Add(c.counter.Counts().Sub(before))
		return res, err
	}
	res := Result{Reused: true}
	res.Outputs, res.ExitStatuses, err = runCommands(c.client, first, commands)
	res.Commands = time.Since(started)
	res.LAN = c.counter.Counts().Sub(before)
	return res, p.finish(ctx, device, c, stop, err, true)
}

func (p *Pool) dialAndRun(ctx context.Context, device string, commands []string, keep bool) (Result, error) {
	started := time.Now()
	c, err := p.dial(ctx, device)
	if err != nil {
		return Result{}, err
	}
	res := Result{Connect: time.Since(started)}
	stop := context.AfterFunc(ctx, c.close)
	started = time.Now()
	res.Outputs, res.ExitStatuses, err = runCommands(c.client, nil, commands)
	res.Commands = time.Since(started)
	res.LAN = c.counter.Counts()
	return res, p.finish(ctx, device, c, stop, err, keep)
}

// finish ends a request's use of c: back to the pool when it is to be kept
// and everything went well, else closed. stop is the context watch that
// closes c when the request's context ends; if it did, the request failed
// with the context's error, whatever the SSH calls returned.
func (p *Pool) finish(ctx context.Context, device string, c *conn, stop func() bool, err error, keep bool) error {
	if !stop() {
		return fmt.Errorf("%s: %w", device, ctx.Err())
	}
	if err != nil || !keep {
		c.close()
		if err != nil {
			return fmt.Errorf("%s: %w", device, err)
		}
		return nil
	}
	p.put(device, c)
	return nil
}

// dial connects and logs in. The connection is counted from its TCP
// connect on. SSH calls take no context, so the request's context ending
// closes the socket, which is what unblocks them.
func (p *Pool) dial(ctx context.Context, device string) (*conn, error) {
	addr := net.JoinHostPort(device, strconv.Itoa(p.cfg.Port))
	deadline := time.Now().Add(p.cfg.DialTimeout)
	raw, err := (&net.Dialer{Deadline: deadline}).DialContext(ctx, "tcp", addr)
	if err != nil {
		p.cfg.Observer.Dialed(false)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ssh dial %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("ssh dial %s: %w", addr, err)
	}
	counter := roundtrips.New(raw, true)
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	err = raw.SetDeadline(deadline)
	var client *ssh.Client
	if err == nil {
		var sshConn ssh.Conn
		var channels <-chan ssh.NewChannel
		var requests <-chan *ssh.Request
		if sshConn, channels, requests, err = ssh.NewClientConn(counter, addr, p.client); err == nil {
			client = ssh.NewClient(sshConn, channels, requests)
			err = raw.SetDeadline(time.Time{})
		}
	}
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		raw.Close()
		p.cfg.Observer.Dialed(false)
		return nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	p.cfg.Observer.Dialed(true)
	return &conn{client: client, counter: counter}, nil
}

// runCommands runs each command on its own session, in order; first, when
// not nil, is the first command's session, already open.
func runCommands(client *ssh.Client, first *ssh.Session, commands []string) ([]string, []int, error) {
	outputs := make([]string, 0, len(commands))
	statuses := make([]int, 0, len(commands))
	for i, command := range commands {
		session := first
		if i > 0 || session == nil {
			var err error
			if session, err = client.NewSession(); err != nil {
				return nil, nil, fmt.Errorf("command %d: open session: %w", i+1, err)
			}
		}
		output, status, err := run(session, command)
		if err != nil {
			return nil, nil, fmt.Errorf("command %d (%q): %w", i+1, command, err)
		}
		outputs = append(outputs, output)
		statuses = append(statuses, status)
	}
	return outputs, statuses, nil
}

// run runs one command: stdout, then stderr if any, and the exit status. A
// command that exits non-zero is a result, not an error; a session that ends
// without an exit status is an error.
func run(session *ssh.Session, command string) (string, int, error) {
	defer session.Close()
	var stdout, stderr bytes.Buffer
	session.Stdout, session.Stderr = &stdout, &stderr
	status := 0
	if err := session.Run(command); err != nil {
		var exit *ssh.ExitError
		if !errors.As(err, &exit) {
			return "", 0, err
		}
		status = exit.ExitStatus()
	}
	stdout.Write(stderr.Bytes())
	return stdout.String(), status, nil
}

// take returns the device's most recently used idle connection (the likeliest
// to be alive), or nil.
func (p *Pool) take(device string) *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle := p.idle[device]
	if len(idle) == 0 {
		return nil
	}
	c := idle[len(idle)-1]
	if len(idle) == 1 {
		delete(p.idle, device)
	} else {
		p.idle[device] = idle[:len(idle)-1]
	}
	p.nIdle--
	p.cfg.Observer.IdleConnections(p.nIdle)
	return c
}

// put keeps c for the device's next request, or closes it when the device
// has MaxIdle idle connections already or the pool is closed.
func (p *Pool) put(device string, c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.idle[device]) >= p.cfg.MaxIdle {
		c.close()
		return
	}
	p.idle[device] = append(p.idle[device], c)
	p.nIdle++
	p.cfg.Observer.IdleConnections(p.nIdle)
}

// Close closes every idle connection; connections in use are closed when
// their requests end.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, idle := range p.idle {
		for _, c := range idle {
			c.close()
		}
	}
	clear(p.idle)
	p.nIdle = 0
	p.cfg.Observer.IdleConnections(0)
}

// hostKeys is the trust-on-first-use store: the first key an address offers
// is the only one accepted from it afterwards.
type hostKeys struct {
	mu    sync.Mutex
	known map[string]ssh.PublicKey
}

func (h *hostKeys) check(addr string, _ net.Addr, key ssh.PublicKey) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	known, ok := h.known[addr]
	if !ok {
		h.known[addr] = key
		return nil
	}
	if !bytes.Equal(known.Marshal(), key.Marshal()) {
		return fmt.Errorf("host key mismatch for %s: first seen %s %s, now offered %s %s", addr,
			known.Type(), ssh.FingerprintSHA256(known), key.Type(), ssh.FingerprintSHA256(key))
	}
	return nil
}
