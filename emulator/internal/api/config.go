package api

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"transportlab/emulator/internal/engine"
)

// handleConfig applies newline-separated configuration lines as if pasted
// after "configure terminal", and answers with the device's output. Lines
// starting with "!" are comments, as in a saved configuration. The first
// rejected line stops the upload with 400; lines before it stay applied, as
// on a real device, and the output so far shows what was done.
func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	if contentType := r.Header.Get("Content-Type"); contentType != "" {
		if mediaType, _, err := mime.ParseMediaType(contentType); err != nil || mediaType != "text/plain" {
			writeText(w, http.StatusUnsupportedMediaType, "% Configuration must be sent as text/plain\n")
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeText(w, http.StatusRequestEntityTooLarge, "% Configuration larger than 1 MiB\n")
			return
		}
		writeText(w, http.StatusBadRequest, "% Could not read the request body\n")
		return
	}

	device, state := s.deviceFor(r)
	session := s.engine.NewSessionOn(state.Config, false)
	var out strings.Builder
	lines := append([]string{"configure terminal"}, strings.Split(string(body), "\n")...)
	for _, line := range lines {
		line = strings.TrimRight(line, "\r")
		if trimmed := strings.TrimSpace(line); trimmed == "" || strings.HasPrefix(trimmed, "!") {
			continue
		}
		result := session.Execute(line)
		s.recorder.CommandServed(transportOf(r), device, string(result.Err))
		out.WriteString(result.Output)
		switch {
		case result.Err == engine.ErrInternal:
			writeText(w, http.StatusInternalServerError, out.String())
			return
		case !result.OK():
			writeText(w, http.StatusBadRequest, out.String())
			return
		case result.Exit:
			writeText(w, http.StatusOK, out.String())
			return
		}
	}
	if session.InConfigMode() {
		session.Execute("end")
	}
	writeText(w, http.StatusOK, out.String())
}
