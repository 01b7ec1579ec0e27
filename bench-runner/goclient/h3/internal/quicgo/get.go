package quicgo

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/quic-go/quic-go/http3"
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

// get sends GET of the commands' path on cn and reads the response; early sends it as
// quic-go's GET_0RTT, at once, in early data if the handshake is not complete.
func (c *client) get(cn *conn, commands []string, early bool) (answer, error) {
	method := http.MethodGet
	if early {
		method = http3.MethodGet0RTT
	}
	req, err := http.NewRequest(method, c.url(execPath(commands)), nil)
	if err != nil {
		return answer{}, err
	}
	return c.exchange(cn, req)
}
