// Command goclient runs one of the lab's modes with scrapligo, for bench-runner.
//
// Usage: goclient version | goclient modes | goclient <mode>
//
// For a mode it reads a JSON job (internal/job) as the first line of standard input, opens
// what the mode keeps across iterations, writes a "ready" line, then runs the iterations
// (internal/loop) and writes one JSON line per iteration (internal/report) with its
// boundaries on CLOCK_REALTIME, the clock the runner's packet capture is stamped with.
// Credentials come from the environment variables the job names, never the command line.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/cli"
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/nc"
	"transportlab/goclient/internal/report"
)

// opener builds a mode's iterator, opening what it keeps across iterations.
type opener func(job.Job, job.Credentials) (loop.Iterator, error)

var modes = map[string]opener{
	"ssh/pty-fresh": func(j job.Job, c job.Credentials) (loop.Iterator, error) {
		return cli.NewPtyFresh(j, c), nil
	},
	"netconf/fresh-session": func(j job.Job, c job.Credentials) (loop.Iterator, error) {
		return nc.NewFreshSession(j, c), nil
	},
	"netconf/reuse-session": func(j job.Job, c job.Credentials) (loop.Iterator, error) {
		return nc.NewReuseSession(j, c)
	},
	"netconf/edit-commit": func(j job.Job, c job.Credentials) (loop.Iterator, error) {
		return nc.NewEditCommit(j, c)
	},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goclient version | modes | <mode>")
		os.Exit(2)
	}
	switch name := os.Args[1]; name {
	case "version":
		fmt.Println(buildinfo.Read())
	case "modes":
		names := make([]string, 0, len(modes))
		for name := range modes {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Println(name)
		}
	default:
		open, ok := modes[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "goclient: unknown mode %q (goclient modes lists them)\n", name)
			os.Exit(2)
		}
		w := report.NewWriter(os.Stdout)
		if err := run(open, os.Stdin, w); err != nil {
			_ = w.Write(report.Line{Event: report.EventError, Error: err.Error()})
			os.Exit(1)
		}
	}
}

func run(open opener, stdin io.Reader, w *report.Writer) error {
	in := bufio.NewReader(stdin)
	first, err := in.ReadBytes('\n')
	if err != nil && len(first) == 0 {
		return fmt.Errorf("job: %w", err)
	}
	j, err := job.Parse(first)
	if err != nil {
		return err
	}
	creds, err := j.Credentials(os.LookupEnv)
	if err != nil {
		return err
	}
	it, err := open(j, creds)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	if err := w.Write(report.Line{Event: report.EventReady, Client: "scrapligo", Version: buildinfo.Read(), OK: true}); err != nil {
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
