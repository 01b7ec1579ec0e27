package engine

// ErrorKind classifies a failed command; it doubles as a metrics label.
type ErrorKind string

// Error kinds mirror the messages IOS prints.
const (
	ErrInvalidInput ErrorKind = "invalid_input"
	ErrAmbiguous    ErrorKind = "ambiguous"
	ErrIncomplete   ErrorKind = "incomplete"
	ErrInternal     ErrorKind = "internal"
	// ErrConfig: the configuration store refused a line or is unreachable.
	ErrConfig ErrorKind = "config"
)

// Result is what one input line produced.
type Result struct {
	// Output is the text to show, "\n"-terminated lines; on failure it holds
	// the IOS-style error message.
	Output string
	// Err is empty when the command succeeded.
	Err ErrorKind
	// Exit asks the front-end to close the session (exit/logout in exec mode).
	Exit bool
}

// OK reports whether the command succeeded.
func (r Result) OK() bool { return r.Err == "" }

func output(text string) Result { return Result{Output: text} }

// errorResult renders a parse error in the platform's words.
func (s *Session) errorResult(line string, perr *parseError) Result {
	var text string
	switch perr.kind {
	case ErrInvalidInput:
		text = s.engine.platform.invalid(line, perr.word, perr.index, perr.column, s.Prompt(), s.echoed)
	case ErrAmbiguous:
		text = s.engine.platform.ambiguous(line)
	case ErrIncomplete:
		text = "% Incomplete command.\n\n"
	}
	return Result{Output: text, Err: perr.kind}
}
