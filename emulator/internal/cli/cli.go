// Package cli is the SSH front-end of the device: it runs either the command
// string of an SSH exec request or an interactive terminal session, both on
// an engine.Session. It talks to plain readers and writers; putting a real
// terminal into raw mode is the caller's job.
package cli

import (
	"io"
	"strings"

	"transportlab/emulator/internal/engine"
)

// Recorder is told about every executed command.
type Recorder interface {
	CommandServed(result engine.Result)
}

// RunExec runs the commands of an exec request ("show version\nshow clock"),
// one per line, in order, writing their outputs (errors included) to w. It
// reports whether every command succeeded; "exit" stops early.
func RunExec(session *engine.Session, script string, w io.Writer, recorder Recorder) (bool, error) {
	ok := true
	for _, line := range strings.Split(script, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		result := session.Execute(line)
		recorder.CommandServed(result)
		ok = ok && result.OK()
		if _, err := io.WriteString(w, result.Output); err != nil {
			return false, err
		}
		if result.Exit {
			break
		}
	}
	return ok, nil
}
