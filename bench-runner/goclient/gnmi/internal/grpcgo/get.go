package grpcgo

import (
	"fmt"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// getRequest reads the configuration of the interfaces at paths, JSON_IETF encoded.
func getRequest(paths ...*gpb.Path) *gpb.GetRequest {
	return &gpb.GetRequest{Path: paths, Type: gpb.GetRequest_CONFIG, Encoding: gpb.Encoding_JSON_IETF}
}

// get runs one Get on the channel; the answer is the text of each update's value.
func (ch *channel) get(c *client, request *gpb.GetRequest) ([]string, error) {
	ctx, cancel := c.call()
	defer cancel()
	response, err := ch.gnmi.Get(ctx, request)
	if err != nil {
		return nil, err
	}
	got := values(response.GetNotification())
	if len(got) == 0 {
		return nil, fmt.Errorf("get %s: no update in the response", pathsText(request.GetPath()))
	}
	return got, nil
}

func pathsText(paths []*gpb.Path) string {
	texts := make([]string, len(paths))
	for i, path := range paths {
		var b strings.Builder
		for _, elem := range path.GetElem() {
			b.WriteString("/" + elem.GetName())
			if name := elem.GetKey()["name"]; name != "" {
				b.WriteString("[name=" + name + "]")
			}
		}
		texts[i] = b.String()
	}
	return strings.Join(texts, ",")
}

// FreshConn opens a channel per command (TCP, TLS, HTTP/2's preface and SETTINGS), runs one
// Get of the command's interface configuration on it and closes it. The interfaces are
// discovered on a channel of their own before the first iteration. Phases per command:
// connect (until grpc-go reports the channel ready), rpcs (the Get), close: the runner's
// phase names (bench_runner/phases.py).
type FreshConn struct {
	c          *client
	interfaces []iface
	opened     []report.Connection
}

// NewFreshConn discovers the device's interfaces.
func NewFreshConn(c *client) (*FreshConn, error) {
	ch, err := c.dial()
	if err != nil {
		return nil, err
	}
	interfaces, err := ch.discover(c)
	opened := ch.opened()
	if closeErr := ch.close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	return &FreshConn{c: c, interfaces: interfaces, opened: opened}, nil
}

// Opened is the channel that discovered the interfaces.
func (f *FreshConn) Opened() []report.Connection { return f.opened }

// Iterate runs one iteration.
func (f *FreshConn) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	for i := range commands {
		name := pick(f.interfaces, i).name
		started := time.Now()
		ch, err := f.c.dial()
		phases.Add("connect", time.Since(started))
		if err != nil {
			result.Err = err
			return result
		}
		var got []string
		err = phases.Measure("rpcs", func() (err error) {
			got, err = ch.get(f.c, getRequest(configPath(name)))
			return err
		})
		result.Connections = append(result.Connections, ch.opened()...)
		if closeErr := phases.Measure("close", ch.close); err == nil {
			err = closeErr
		}
		if err != nil {
			result.Err = fmt.Errorf("%s: %w", name, err)
			return result
		}
		result.Outputs = append(result.Outputs, strings.Join(got, "\n"))
	}
	return result
}

// Kept is one channel opened before the first iteration (not measured), on which the
// interfaces are discovered and every iteration runs.
type Kept struct {
	c          *client
	ch         *channel
	interfaces []iface
}

func openKept(c *client) (*Kept, error) {
	ch, err := c.dial()
	if err != nil {
		return nil, err
	}
	interfaces, err := ch.discover(c)
	if err != nil {
		_ = ch.close()
		return nil, err
	}
	return &Kept{c: c, ch: ch, interfaces: interfaces}, nil
}

// Opened is the kept channel.
func (k *Kept) Opened() []report.Connection { return k.ch.opened() }

// Close closes the kept channel.
func (k *Kept) Close() error { return k.ch.close() }

// ReuseConn runs one unary Get per command on the kept channel, each after the previous
// answer. Phase: rpcs.
type ReuseConn struct{ *Kept }

// Iterate runs one iteration.
func (r ReuseConn) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	for i := range commands {
		name := pick(r.interfaces, i).name
		var got []string
		err := phases.Measure("rpcs", func() (err error) {
			got, err = r.ch.get(r.c, getRequest(configPath(name)))
			return err
		})
		if err != nil {
			result.Err = fmt.Errorf("%s: %w", name, err)
			return result
		}
		result.Outputs = append(result.Outputs, strings.Join(got, "\n"))
	}
	return result
}

// GetMulti runs one Get carrying every command's path on the kept channel; the answer
// holds one update per path. Phase: rpcs.
type GetMulti struct{ *Kept }

// Iterate runs one iteration.
func (g GetMulti) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	paths := make([]*gpb.Path, len(commands))
	for i := range commands {
		paths[i] = configPath(pick(g.interfaces, i).name)
	}
	var got []string
	result.Err = phases.Measure("rpcs", func() (err error) {
		got, err = g.ch.get(g.c, getRequest(paths...))
		return err
	})
	if result.Err == nil && len(got) != len(paths) {
		result.Err = fmt.Errorf("get of %d paths answered %d updates", len(paths), len(got))
	}
	if result.Err == nil {
		result.Outputs = got
	}
	return result
}
