package configdb

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"transportlab/emulator/internal/engine"
)

// The socket protocol: one JSON object per line in each direction, one
// response per request, in order, on a connection a shell keeps for its
// session. Every request names the emulated device of the fleet whose
// store it is for, by index ("device": 1..N; absent means 1): the shell
// serves the device whose address its SSH client connected to.
//
//	{"device":2,"op":"hostname"}                           -> {"hostname":"lab-r2"}
//	{"device":2,"op":"apply","block":"","line":"hostname x"} -> {"hostname":"x"}
//	{"device":2,"op":"lines"}                              -> {"hostname":"x","lines":["interface ...", ...]}
//
// A refused line or a failed request answers {"hostname":...,"error":"text"}
// (device wording, shown after "% "). Every response carries the device's
// hostname, which the client keeps for when the daemon cannot be reached;
// a malformed request, or one for a device the fleet does not have,
// answers an error and no hostname.
type request struct {
	Device int    `json:"device,omitempty"`
	Op     string `json:"op"`
	Block  string `json:"block,omitempty"`
	Line   string `json:"line,omitempty"`
}

type response struct {
	Hostname string   `json:"hostname"`
	Lines    []string `json:"lines,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// MaxRequest bounds one request line (a configuration line is far shorter).
const MaxRequest = 1 << 20

// Serve answers requests on ln with the stores of fleet until ln is
// closed. Open connections live as long as their shells and end with the
// process.
func Serve(ln net.Listener, fleet Fleet) error {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go func() {
			defer conn.Close()
			serveConn(conn, fleet)
		}()
	}
}

func serveConn(conn net.Conn, fleet Fleet) {
	scanner := bufio.NewScanner(conn)
	scanner.Buffer(make([]byte, 4096), MaxRequest)
	enc := json.NewEncoder(conn)
	for scanner.Scan() {
		if enc.Encode(answer(scanner.Bytes(), fleet)) != nil {
			return
		}
	}
}

// answer handles one request line.
func answer(line []byte, fleet Fleet) response {
	req := request{Device: 1}
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: "Malformed configuration request"}
	}
	store, ok := fleet.Device(req.Device)
	if !ok {
		return response{Error: fmt.Sprintf("Unknown device %d", req.Device)}
	}
	var resp response
	switch req.Op {
	case "hostname":
	case "apply":
		if err := store.Apply(req.Block, req.Line); err != nil {
			resp.Error = err.Error()
		}
	case "lines":
		lines, err := store.Lines()
		if err != nil {
			resp.Error = err.Error()
		}
		resp.Lines = lines
	default:
		resp.Error = "Unknown configuration request"
	}
	resp.Hostname = store.Hostname()
	return resp
}

// ErrUnavailable is what a shell shows when the daemon does not answer.
//
//lint:ignore ST1005 device wording, shown to the user after "% " (engine.ConfigStore.Apply)
var ErrUnavailable = errors.New("Configuration database is not available; try again later")

// Client is an engine.ConfigStore served by the daemon over its socket.
// Requests are serialised; each one gets Timeout (dial, write and read),
// and a broken connection is redialled once per request.
type Client struct {
	path    string
	device  int
	Timeout time.Duration

	mu       sync.Mutex
	conn     net.Conn
	reader   *bufio.Reader
	hostname string
}

var _ engine.ConfigStore = (*Client)(nil)

// NewClient talks to the socket at path about the store of device (the
// fleet index, 1..N); hostname is shown until the daemon has answered.
func NewClient(path string, device int, hostname string) *Client {
	return &Client{path: path, device: device, Timeout: 2 * time.Second, hostname: hostname}
}

// Close drops the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.drop()
}

func (c *Client) drop() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn, c.reader = nil, nil
	return err
}

func (c *Client) call(req request) (response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req.Device = c.device
	payload, err := json.Marshal(req)
	if err != nil {
		return response{}, err
	}
	payload = append(payload, '\n')
	for attempt := 0; ; attempt++ {
		reused := c.conn != nil
		resp, err := c.roundTrip(payload)
		if err == nil {
			if resp.Hostname != "" {
				c.hostname = resp.Hostname
			}
			if resp.Error != "" {
				return resp, errors.New(resp.Error)
			}
			return resp, nil
		}
		c.drop()
		// Only a connection that may have gone stale (daemon restarted)
		// deserves a second try; a failed dial is final.
		if !reused || attempt > 0 {
			return response{}, ErrUnavailable
		}
	}
}

func (c *Client) roundTrip(payload []byte) (response, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("unix", c.path, c.Timeout)
		if err != nil {
			return response{}, err
		}
		c.conn, c.reader = conn, bufio.NewReader(conn)
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.Timeout)); err != nil {
		return response{}, err
	}
	if _, err := c.conn.Write(payload); err != nil {
		return response{}, err
	}
	line, err := c.reader.ReadBytes('\n')
	if err != nil {
		return response{}, err
	}
	var resp response
	err = json.Unmarshal(line, &resp)
	return resp, err
}

// Hostname implements engine.ConfigStore; without the daemon it is the
// last hostname the daemon reported.
func (c *Client) Hostname() string {
	_, _ = c.call(request{Op: "hostname"})
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hostname
}

// Apply implements engine.ConfigStore.
func (c *Client) Apply(block, line string) error {
	_, err := c.call(request{Op: "apply", Block: block, Line: line})
	return err
}

// Lines implements engine.ConfigStore.
func (c *Client) Lines() ([]string, error) {
	resp, err := c.call(request{Op: "lines"})
	return resp.Lines, err
}
