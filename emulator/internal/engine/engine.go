// Package engine is the device's command interpreter. Every transport (SSH
// exec, SSH PTY, HTTPS API) drives the same Engine through a Session, so a
// command behaves identically whichever way it arrives.
package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"transportlab/emulator/internal/ifstate"
)

// Options describe the emulated device.
type Options struct {
	Hostname  string
	Platform  string
	Version   string    // emulator version, available to transcripts
	StartedAt time.Time // boot time, for "uptime is ..."
	// Now is the clock; nil means time.Now. Tests pin it.
	Now func() time.Time
	// CommandDelay is added before every command is answered, to model
	// the processing time of a real device's control plane (default 0).
	CommandDelay time.Duration
	// CommandJitter adds a uniformly random delay in [0, CommandJitter)
	// to CommandDelay, drawn per command: a device made noisy on purpose
	// (a busy control plane), which the runner's precision rule must
	// recognise (default 0).
	CommandJitter time.Duration
	// Config is the configuration store; nil means a private in-memory
	// store starting with Hostname.
	Config ConfigStore
}

// DefaultTerminalLength is the page length of interactive sessions until
// "terminal length" changes it (as on IOS and EOS).
const DefaultTerminalLength = 24

// Engine holds the command grammar and the default configuration store. It
// is safe for concurrent use by many sessions. One engine serves every
// device of a fleet: a session is on one device's store (NewSessionOn).
type Engine struct {
	opts        Options
	platform    *platform
	transcripts []Transcript
	config      ConfigStore
	execRoot    *node
	configRoot  *node
}

// New builds an engine answering the given transcripts plus the built-in
// commands (configure terminal, terminal length/width, exit, logout).
func New(opts Options, transcripts []Transcript) (*Engine, error) {
	if opts.Hostname == "" {
		return nil, fmt.Errorf("hostname must not be empty")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p, err := lookupPlatform(opts.Platform)
	if err != nil {
		return nil, err
	}
	config := opts.Config
	if config == nil {
		config = NewMemoryStore(opts.Hostname)
	}
	e := &Engine{opts: opts, platform: p, transcripts: transcripts, config: config}
	e.execRoot = execGrammar(p)
	for _, t := range transcripts {
		if err := addTranscript(e.execRoot, t); err != nil {
			return nil, err
		}
	}
	e.configRoot = configGrammar()
	return e, nil
}

func addTranscript(root *node, t Transcript) error {
	words := strings.Fields(strings.ToLower(t.Command))
	if len(words) == 0 {
		return fmt.Errorf("transcript with empty command")
	}
	n := root
	for _, w := range words {
		n = n.keyword(w)
	}
	if n.run != nil {
		return fmt.Errorf("command %q is defined twice", t.Command)
	}
	n.run = func(s *Session, _ []string) Result { return s.render(t) }
	return nil
}

// mode is where a session is in the IOS mode hierarchy.
type mode int

const (
	modeExec      mode = iota // "lab-r1#"
	modeConfig                // "lab-r1(config)#"
	modeSubConfig             // "lab-r1(config-if)#" and friends
)

// Session is one user's conversation with the device: its mode and the
// sub-mode block being edited. A Session is not safe for concurrent use.
type Session struct {
	engine *Engine
	// config is the store of the device the session is on.
	config ConfigStore
	echoed bool
	mode   mode
	// subPrompt ("config-if") and subHeader ("interface Loopback0") describe
	// the open sub-mode.
	subPrompt string
	subHeader string
	// line is the input being executed, for error messages of nested
	// commands ("do show ...").
	line string
	// length is the terminal length: lines per page, 0 = no paging.
	length int
}

// NewSession starts a session in privileged exec mode. echoed tells whether
// the front-end shows the typed line after the prompt (interactive PTY); it
// decides where the "^" of an invalid-input error goes.
// Interactive sessions page their output at DefaultTerminalLength lines.
func (e *Engine) NewSession(echoed bool) *Session {
	return e.NewSessionOn(e.config, echoed)
}

// NewSessionOn starts a session like NewSession on another device's
// configuration store: its hostname, configuration mode and
// running-config, with the engine's grammar and transcripts.
func (e *Engine) NewSessionOn(config ConfigStore, echoed bool) *Session {
	s := &Session{engine: e, config: config, echoed: echoed}
	if echoed {
		s.length = DefaultTerminalLength
	}
	return s
}

// TerminalLength is the page length set by "terminal length" (0: no paging).
func (s *Session) TerminalLength() int { return s.length }

// Prompt is the IOS prompt for the current mode, e.g. "lab-r1(config)#".
func (s *Session) Prompt() string {
	host := s.config.Hostname()
	switch s.mode {
	case modeConfig:
		return host + "(config)#"
	case modeSubConfig:
		return host + "(" + s.subPrompt + ")#"
	default:
		return host + "#"
	}
}

// InConfigMode reports whether the session is in (any) configuration mode.
func (s *Session) InConfigMode() bool { return s.mode != modeExec }

// Execute runs one input line. Blank lines succeed with no output.
func (s *Session) Execute(line string) Result {
	line = strings.TrimRight(line, "\r\n")
	if strings.TrimSpace(line) == "" {
		return Result{}
	}
	s.line = line
	if d := s.engine.commandDelay(); d > 0 {
		time.Sleep(d)
	}
	if len(line) > MaxLineLength {
		return Result{Output: fmt.Sprintf("%% Command line too long (%d bytes; the limit is %d)\n", len(line), MaxLineLength),
			Err: ErrInvalidInput}
	}
	switch s.mode {
	case modeConfig:
		return s.run(s.engine.configRoot, line)
	case modeSubConfig:
		return s.executeSubMode(line)
	default:
		return s.runExec(line)
	}
}

// MaxLineLength bounds one command line in bytes, whichever transport
// brings it (the PTY line editor's buffer has the same size).
const MaxLineLength = 4096

func (s *Session) run(root *node, line string) Result {
	p, perr := root.parse(line)
	if perr != nil {
		return s.errorResult(s.line, perr)
	}
	return p.run(s, p.args)
}

// runExec runs an exec command and its output modifiers. The command is
// checked before the modifiers, as the device reads the line left to
// right.
func (s *Session) runExec(line string) Result {
	pipe := findPipe(line)
	if pipe < 0 {
		return s.run(s.engine.execRoot, line)
	}
	p, perr := s.engine.execRoot.parse(line[:pipe])
	if perr == nil {
		var mods []modifier
		if mods, perr = s.parseModifiers(line, pipe); perr == nil {
			r := p.run(s, p.args)
			if r.OK() {
				r.Output = filter(r.Output, mods)
			}
			return r
		}
	}
	return s.errorResult(s.line, perr)
}

func (s *Session) render(t Transcript) Result {
	var lines []string
	if t.usesConfig {
		var err error
		if lines, err = s.config.Lines(); err != nil {
			return Result{Output: "% " + err.Error() + "\n", Err: ErrConfig}
		}
	}
	now := s.engine.opts.Now()
	uptime := now.Sub(s.engine.opts.StartedAt)
	data := TemplateData{
		Hostname:    s.config.Hostname(),
		Platform:    s.engine.opts.Platform,
		Version:     s.engine.opts.Version,
		Uptime:      formatUptime(uptime),
		Clock:       formatClock(now),
		ConfigLines: lines,
		Interfaces:  ifstate.Snapshot(ifstate.FromRunningConfig(lines), uptime),
		Now:         now.UTC(),
	}
	var b strings.Builder
	if err := t.template.Execute(&b, data); err != nil {
		return Result{Output: "% Internal error while rendering output\n", Err: ErrInternal}
	}
	out := b.String()
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return output(out)
}

// commandDelay is the wait before one command's answer: the fixed delay
// plus, with a jitter, a fresh uniform draw from [0, CommandJitter).
func (e *Engine) commandDelay() time.Duration {
	d := e.opts.CommandDelay
	if j := e.opts.CommandJitter; j > 0 {
		d += rand.N(j)
	}
	return d
}
