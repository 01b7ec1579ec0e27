package engine

import (
	"fmt"
	"strings"
)

// ErrorKind classifies a failed command; it doubles as a metrics label.
type ErrorKind string

// Error kinds mirror the messages IOS prints.
const (
	ErrInvalidInput ErrorKind = "invalid_input"
	ErrAmbiguous    ErrorKind = "ambiguous"
	ErrIncomplete   ErrorKind = "incomplete"
	ErrInternal     ErrorKind = "internal"
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

// errorResult renders a parse error the way IOS does. When the front-end has
// already echoed the line after the prompt, the caret is shifted by the
// prompt width; otherwise the line is repeated so the caret has a reference.
func errorResult(line string, perr *parseError, prompt string, echoed bool) Result {
	var b strings.Builder
	switch perr.kind {
	case ErrInvalidInput:
		column := perr.column
		if echoed {
			column += len([]rune(prompt))
		} else {
			b.WriteString(line)
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat(" ", column))
		b.WriteString("^\n% Invalid input detected at '^' marker.\n\n")
	case ErrAmbiguous:
		fmt.Fprintf(&b, "%% Ambiguous command: %q\n", strings.TrimSpace(line))
	case ErrIncomplete:
		b.WriteString("% Incomplete command.\n\n")
	}
	return Result{Output: b.String(), Err: perr.kind}
}
