package quicgo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"time"

	"transportlab/goclient/internal/loop"
)

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

// exchange sends req on cn with the job's credentials and reads the whole response, within
// the job's timeout.
func (c *client) exchange(cn *conn, req *http.Request) (answer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var wrote time.Time
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() },
	})
	req = req.WithContext(ctx)
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

// url is the address of path on the job's host and port.
func (c *client) url(path string) string { return "https://" + c.addr + path }
