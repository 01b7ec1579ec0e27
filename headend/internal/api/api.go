// Package api is the head-end's HTTP API: one handler, served over HTTPS
// (HTTP/1.1 and HTTP/2 on TCP) and HTTP/3 (UDP) alike.
//
//	Route                                        Auth   Answer
//	GET  /healthz                                none   200 {"ok": true}
//	POST /devices/{device}/exec?ssh=fresh|pooled Basic  200 the outputs and the LAN hop's cost
//
// POST /devices/{device}/exec runs commands on {device} (an IPv4 address or
// a host name, one of HEADEND_TARGETS) over SSH, each on its own exec
// channel, in order, on one connection: dialed for the request (ssh=fresh)
// or taken from the pool and kept afterwards (ssh=pooled, the default).
//
//	request   {"commands": ["show version", ...]}   1..64 non-empty commands, body ≤ 64 KiB
//	200       {"device", "ssh", "reused", "outputs": [...], "exit_statuses": [...],
//	           "lan": {"connect_ms", "commands_ms", "round_trips", "bytes_sent", "bytes_received"},
//	           "headend_ms"}
//	          Server-Timing: ssh-connect;dur=X, ssh-commands;dur=Y, total;dur=Z
//	400 bad input   401 no or wrong credentials (WWW-Authenticate)   403 not a target
//	502 SSH failed  504 HEADEND_COMMAND_TIMEOUT passed
//
// Every error answer is {"error": "..."}. A command's non-zero exit status
// is part of a 200 answer; an SSH failure at any point fails the whole
// request, so there is never a 200 with part of the outputs.
package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"transportlab/headend/internal/sshpool"
	"transportlab/headend/internal/targets"
)

const (
	maxBody     = 64 << 10
	maxCommands = 64
)

// Runner runs a request's commands on a device over SSH.
type Runner interface {
	Fresh(ctx context.Context, device string, commands []string) (sshpool.Result, error)
	Pooled(ctx context.Context, device string, commands []string) (sshpool.Result, error)
}

// Observer is told about every exec request (the metrics): its ssh mode
// ("fresh", "pooled" or "invalid"), outcome and duration.
type Observer interface {
	Request(ssh, outcome string, d time.Duration)
}

// Config is what the handler needs.
type Config struct {
	Username, Password string
	Targets            targets.List
	CommandTimeout     time.Duration
	Runner             Runner
	Observer           Observer
	Logger             *slog.Logger
}

type handler struct {
	// The credentials' hashes: comparing fixed-length digests in constant
	// time does not reveal the credentials' lengths either.
	user, password [sha256.Size]byte
	targets        targets.List
	timeout        time.Duration
	runner         Runner
	observer       Observer
	log            *slog.Logger
}

// New returns the API's handler.
func New(cfg Config) http.Handler {
	h := &handler{
		user:     sha256.Sum256([]byte(cfg.Username)),
		password: sha256.Sum256([]byte(cfg.Password)),
		targets:  cfg.Targets,
		timeout:  cfg.CommandTimeout,
		runner:   cfg.Runner,
		observer: cfg.Observer,
		log:      cfg.Logger,
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})
	mux.HandleFunc("POST /devices/{device}/exec", h.exec)
	return mux
}

type execResponse struct {
	Device       string   `json:"device"`
	SSH          string   `json:"ssh"`
	Reused       bool     `json:"reused"`
	Outputs      []string `json:"outputs"`
	ExitStatuses []int    `json:"exit_statuses"`
	LAN          lan      `json:"lan"`
	HeadendMS    float64  `json:"headend_ms"`
}

type lan struct {
	ConnectMS     float64 `json:"connect_ms"`
	CommandsMS    float64 `json:"commands_ms"`
	RoundTrips    int64   `json:"round_trips"`
	BytesSent     int64   `json:"bytes_sent"`
	BytesReceived int64   `json:"bytes_received"`
}

// failure is an error answer, with the outcome the metrics count it under.
type failure struct {
	status  int
	outcome string
	message string
}

func fail(status int, outcome, format string, args ...any) *failure {
	return &failure{status: status, outcome: outcome, message: fmt.Sprintf(format, args...)}
}

func (h *handler) exec(w http.ResponseWriter, r *http.Request) {
	started := time.Now()
	mode := r.URL.Query().Get("ssh")
	if mode == "" {
		mode = "pooled"
	}
	res, f := h.run(w, r, mode)
	total := time.Since(started)
	if mode != "fresh" && mode != "pooled" {
		mode = "invalid"
	}
	if f != nil {
		h.observer.Request(mode, f.outcome, total)
		h.log.Warn("request failed", "device", r.PathValue("device"), "ssh", mode, "status", f.status,
			"error", f.message, "remote", r.RemoteAddr, "proto", r.Proto)
		if f.status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="headend", charset="UTF-8"`)
		}
		writeJSON(w, f.status, map[string]string{"error": f.message})
		return
	}
	h.observer.Request(mode, "ok", total)
	res.HeadendMS = ms(total)
	w.Header().Set("Server-Timing", fmt.Sprintf("ssh-connect;dur=%.3f, ssh-commands;dur=%.3f, total;dur=%.3f",
		res.LAN.ConnectMS, res.LAN.CommandsMS, res.HeadendMS))
	writeJSON(w, http.StatusOK, res)
}

// run checks the request, in order: credentials, ssh mode, device, body;
// then runs the commands.
func (h *handler) run(w http.ResponseWriter, r *http.Request, mode string) (*execResponse, *failure) {
	if !h.authorized(r) {
		return nil, fail(http.StatusUnauthorized, "unauthorized", "authentication required")
	}
	var run func(context.Context, string, []string) (sshpool.Result, error)
	switch mode {
	case "fresh":
		run = h.runner.Fresh
	case "pooled":
		run = h.runner.Pooled
	default:
		return nil, fail(http.StatusBadRequest, "bad_request", "ssh must be fresh or pooled, not %q", mode)
	}
	device := r.PathValue("device")
	if addr, err := netip.ParseAddr(device); !(err == nil && addr.Is4()) && !targets.IsHostName(device) {
		return nil, fail(http.StatusBadRequest, "bad_request", "device %q is neither an IPv4 address nor a host name", device)
	}
	if !h.targets.Allows(device) {
		return nil, fail(http.StatusForbidden, "forbidden", "device %q is not one of the head-end's targets", device)
	}
	commands, err := readCommands(w, r)
	if err != nil {
		return nil, fail(http.StatusBadRequest, "bad_request", "%v", err)
	}

	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	res, err := run(ctx, device, commands)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fail(http.StatusGatewayTimeout, "timeout", "no answer within %s: %v", h.timeout, err)
	case err != nil:
		return nil, fail(http.StatusBadGateway, "ssh_error", "%v", err)
	}
	return &execResponse{
		Device:       device,
		SSH:          mode,
		Reused:       res.Reused,
		Outputs:      res.Outputs,
		ExitStatuses: res.ExitStatuses,
		LAN: lan{
			ConnectMS:     ms(res.Connect),
			CommandsMS:    ms(res.Commands),
			RoundTrips:    res.LAN.RoundTrips,
			BytesSent:     res.LAN.BytesSent,
			BytesReceived: res.LAN.BytesReceived,
		},
	}, nil
}

func (h *handler) authorized(r *http.Request) bool {
	user, password, ok := r.BasicAuth()
	if !ok {
		return false
	}
	u, p := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(password))
	return subtle.ConstantTimeCompare(u[:], h.user[:])&subtle.ConstantTimeCompare(p[:], h.password[:]) == 1
}

// readCommands reads {"commands": [...]}: one JSON object, no other field.
func readCommands(w http.ResponseWriter, r *http.Request) ([]string, error) {
	decoder := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	decoder.DisallowUnknownFields()
	var body struct {
		Commands []string `json:"commands"`
	}
	err := decoder.Decode(&body)
	if err == nil {
		if _, extra := decoder.Token(); extra != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
		return nil, fmt.Errorf("body over %d KiB", maxBody>>10)
	}
	if err != nil {
		return nil, fmt.Errorf(`body: want {"commands": ["..."]}: %v`, err)
	}
	if len(body.Commands) == 0 || len(body.Commands) > maxCommands {
		return nil, fmt.Errorf("%d commands: want 1..%d", len(body.Commands), maxCommands)
	}
	for i, command := range body.Commands {
		if strings.TrimSpace(command) == "" {
			return nil, fmt.Errorf("command %d is empty", i+1)
		}
	}
	return body.Commands, nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
