package quicgo

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// sshUse is how the head-end reaches the device for one request (its ssh query parameter):
// a new SSH connection, or one from its pool.
type sshUse string

const (
	sshFresh  sshUse = "fresh"
	sshPooled sshUse = "pooled"
)

// headendPath is /devices/<device>/exec?ssh=<use>, the device percent-encoded as the
// runner's HTTPS client of the head-end writes it (quote(device, safe=""),
// bench_runner/modes/clients/headend_httpx.py): QueryEscape, but a space as %20.
func headendPath(device string, ssh sshUse) string {
	escaped := strings.ReplaceAll(url.QueryEscape(device), "+", "%20")
	return "/devices/" + escaped + "/exec?ssh=" + string(ssh)
}

// execRequest is the head-end's request body.
type execRequest struct {
	Commands []string `json:"commands"`
}

// postCommands sends POST of path on cn with every command in its JSON body and reads the
// head-end's answer.
func (c *client) postCommands(cn *conn, path string, commands []string) (answer, error) {
	body, err := json.Marshal(execRequest{Commands: commands})
	if err != nil {
		return answer{}, err
	}
	req, err := http.NewRequest(http.MethodPost, c.url(path), bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.exchange(cn, req)
}
