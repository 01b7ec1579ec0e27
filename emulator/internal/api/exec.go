package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"transportlab/emulator/internal/engine"
)

const execPrefix = "/admin/exec/"

// handleExec runs each path segment as one exec command, in order, and
// returns their outputs concatenated. The first failing command ends the
// request with 400 and only its error text. GET must not change the device,
// so a command that would enter configuration mode is refused.
func (s *Server) handleExec(w http.ResponseWriter, r *http.Request) {
	commands, err := commandsFromPath(r.URL.EscapedPath())
	if err != nil {
		writeText(w, http.StatusBadRequest, "% "+err.Error()+"\n")
		return
	}
	device, state := s.deviceFor(r)
	session := s.engine.NewSessionOn(state.Config, false)
	var out strings.Builder
	for _, command := range commands {
		result := session.Execute(command)
		s.recorder.CommandServed(transportOf(r), device, string(result.Err))
		switch {
		case result.Err == engine.ErrInternal:
			writeText(w, http.StatusInternalServerError, result.Output)
			return
		case !result.OK():
			writeText(w, http.StatusBadRequest, result.Output)
			return
		case session.InConfigMode():
			writeText(w, http.StatusBadRequest, "% Configuration commands are accepted only by POST /admin/config\n")
			return
		}
		out.WriteString(result.Output)
	}
	writeText(w, http.StatusOK, out.String())
}

// commandsFromPath splits "/admin/exec/show+version/show%20clock" into
// commands. '+' means a space (as in a form), so it is replaced before
// percent-decoding; a literal plus is written %2B.
func commandsFromPath(escapedPath string) ([]string, error) {
	rest := strings.TrimPrefix(escapedPath, execPrefix)
	var commands []string
	for i, segment := range strings.Split(rest, "/") {
		command, err := url.PathUnescape(strings.ReplaceAll(segment, "+", " "))
		if err != nil {
			return nil, fmt.Errorf("bad percent-encoding in command %d", i+1)
		}
		if strings.TrimSpace(command) != "" {
			commands = append(commands, command)
		}
	}
	if len(commands) == 0 {
		return nil, fmt.Errorf("no command given; use /admin/exec/show+version")
	}
	return commands, nil
}
