package quicgo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"time"

	"github.com/quic-go/quic-go/http3"

	"transportlab/goclient/internal/loop"
)

// execPath is /admin/exec/cmd1/cmd2: one path segment per command, spaces as '+' and every
// other reserved character (including '/') percent-encoded, as the runner's HTTPS clients
// write it (bench_runner/modes/clients/device_api.py).
func execPath(commands []string) string {
	segments := make([]string, len(commands))
	for i, command := range commands {
		segments[i] = url.QueryEscape(command)
	}
	return "/admin/exec/" + strings.Join(segments, "/")
}

// label names a request's commands in an error.
func label(commands []string) string { return strings.Join(commands, "/") }

// answer is one response: its status, its body, and how long each step of it took.
type answer struct {
	status                 int
	body                   string
	send, headers, reading time.Duration
}

// addTo adds the request's steps to phases: send_request (until the request is written on
// its stream), receive_headers, receive_body.
func (a answer) addTo(phases loop.Phases) {
	phases.Add("send_request", a.send)
	phases.Add("receive_headers", a.headers)
	phases.Add("receive_body", a.reading)
}

// get sends GET of the commands' path on cn and reads the response; early sends it as
// quic-go's GET_0RTT, at once, in early data if the handshake is not complete.
func (c *client) get(cn *conn, commands []string, early bool) (answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var wrote time.Time
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() },
	})
	method := http.MethodGet
	if early {
		method = http3.MethodGet0RTT
	}
	req, err := http.NewRequestWithContext(ctx, method, "https://"+c.addr+execPath(commands), nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Authorization", c.authorization)
	started := time.Now()
	resp, err := cn.http.RoundTrip(req)
	if err != nil {
		return answer{}, err
	}
	headers := time.Now()
	if wrote.IsZero() {
		wrote = headers
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return answer{}, fmt.Errorf("body: %w", err)
	}
	return answer{
		status:  resp.StatusCode,
		body:    string(body),
		send:    wrote.Sub(started),
		headers: headers.Sub(wrote),
		reading: time.Since(headers),
	}, nil
}
