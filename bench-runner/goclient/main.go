// Command goclient runs one of the lab's modes with scrapligo, for bench-runner.
//
// Usage: goclient version | goclient modes | goclient <mode>
//
// For a mode it reads a JSON job (internal/job) as the first line of standard input, opens
// what the mode keeps across iterations, writes a "ready" line, then runs the iterations
// (internal/loop) and writes one JSON line per iteration (internal/report) with its
// boundaries on CLOCK_REALTIME, the clock the runner's packet capture is stamped with.
// Credentials come from the environment variables the job names, never the command line.
// internal/program does all of that; this file names the library and its modes.
package main

import (
	"os"

	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/cli"
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/nc"
	"transportlab/goclient/internal/program"
)

var goclient = program.Program{
	Name:    "goclient",
	Library: buildinfo.Library{Name: "scrapligo", Module: "github.com/scrapli/scrapligo"},
	Modes: map[string]program.Opener{
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
	},
}

func main() {
	os.Exit(goclient.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
