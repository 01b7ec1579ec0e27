// Package program is what every goclient program does around its modes: the command line
// (version, modes, <mode>), the job on the first line of standard input, the "ready" line
// naming the measured library, the paced iterations and the closing line. Each program
// (goclient for scrapligo, goclient-h3 for quic-go) is built from its own module, so each
// measures its library with the dependency versions that library's release selects.
package program

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// Opener builds a mode's iterator, opening what it keeps across iterations.
type Opener func(job.Job, job.Credentials) (loop.Iterator, error)

// Program is one binary: the library it measures and its modes.
type Program struct {
	Name    string
	Library buildinfo.Library
	Modes   map[string]Opener
}

// Main runs the command line args (without the program name) and returns the exit status.
func (p Program) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: %s version | modes | <mode>\n", p.Name)
		return 2
	}
	switch name := args[0]; name {
	case "version":
		fmt.Fprintln(stdout, p.Library.Read())
	case "modes":
		names := make([]string, 0, len(p.Modes))
		for name := range p.Modes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintln(stdout, name)
		}
	default:
		open, ok := p.Modes[name]
		if !ok {
			fmt.Fprintf(stderr, "%s: unknown mode %q (%s modes lists them)\n", p.Name, name, p.Name)
			return 2
		}
		w := report.NewWriter(stdout)
		if err := p.run(open, stdin, w, os.LookupEnv); err != nil {
			_ = w.Write(report.Line{Event: report.EventError, Error: err.Error()})
			return 1
		}
	}
	return 0
}

func (p Program) run(open Opener, stdin io.Reader, w *report.Writer, lookup func(string) (string, bool)) error {
	in := bufio.NewReader(stdin)
	first, err := in.ReadBytes('\n')
	if err != nil && len(first) == 0 {
		return fmt.Errorf("job: %w", err)
	}
	j, err := job.Parse(first)
	if err != nil {
		return err
	}
	creds, err := j.Credentials(lookup)
	if err != nil {
		return err
	}
	it, err := open(j, creds)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	ready := report.Line{Event: report.EventReady, Client: p.Library.Name, Version: p.Library.Read(), OK: true}
	if opened, ok := it.(loop.Opened); ok {
		ready.Connections = opened.Opened()
	}
	if err := w.Write(ready); err != nil {
		return err
	}
	runErr := loop.Run(it, j, in, w, time.Now)
	if closer, ok := it.(io.Closer); ok {
		if err := closer.Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("session: %w", err)
		}
	}
	if runErr != nil {
		return runErr
	}
	return w.Write(report.Line{Event: report.EventDone, OK: true})
}
