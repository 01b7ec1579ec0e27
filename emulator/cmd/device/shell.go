package main

import (
	"flag"
	"fmt"
	"os"

	"golang.org/x/term"

	"transportlab/emulator/internal/cli"
	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/events"
	"transportlab/emulator/internal/metrics"
	"transportlab/emulator/internal/settings"
)

// runShell is the SSH login shell: with -c it runs an exec request and
// exits 0 only if every command succeeded; without, it serves an
// interactive session.
func runShell(args []string) int {
	flags := flag.NewFlagSet("device-shell", flag.ContinueOnError)
	script := flags.String("c", "", "commands to run, one per line (SSH exec request)")
	settingsPath := flags.String("settings", settings.DefaultPath, "device settings file")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	exec := false
	flags.Visit(func(f *flag.Flag) { exec = exec || f.Name == "c" })
	if exec && *script == netconfSubsystem {
		return runNetconf(*settingsPath)
	}

	s, err := settings.Load(*settingsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%% Device not ready: %v\n", err)
		return 1
	}
	// The session is on the device of the fleet whose address the client
	// connected to. Its configuration lives in the daemon, shared with
	// every transport.
	device := deviceOfConnection(s.Fleet, os.Getenv("SSH_CONNECTION"))
	config := configdb.NewClient(s.ConfigSocket, device.Index, device.Name)
	defer config.Close()
	e, err := newEngine(s, config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%% Device not ready: %v\n", err)
		return 1
	}

	emitter := events.Dial(s.EventsSocket)
	defer emitter.Close()
	reporter := &eventReporter{emitter: emitter, pid: os.Getpid(), device: device.Index}
	mode := "pty"
	if exec {
		mode = "exec"
	}
	reporter.session(events.SessionOpen, mode)
	defer reporter.session(events.SessionClose, mode)

	if exec {
		ok, err := cli.RunExec(e.NewSession(false), *script, os.Stdout, reporter)
		if err != nil || !ok {
			return 1
		}
		return 0
	}
	if err := interactive(e, reporter); err != nil {
		fmt.Fprintf(os.Stderr, "%% Session error: %v\n", err)
		return 1
	}
	return 0
}

// interactive serves a terminal session. A real terminal is put into raw
// mode because the device, like IOS, does its own echo and line editing.
func interactive(e *engine.Engine, recorder cli.Recorder) error {
	stdinFD := int(os.Stdin.Fd())
	if term.IsTerminal(stdinFD) {
		saved, err := term.MakeRaw(stdinFD)
		if err != nil {
			return err
		}
		defer term.Restore(stdinFD, saved)
	}
	return cli.RunInteractive(e.NewSession(true), os.Stdin, os.Stdout, recorder)
}

// eventReporter tells the device daemon about this SSH session.
type eventReporter struct {
	emitter *events.Emitter
	pid     int
	device  int
}

func (r *eventReporter) session(kind events.Kind, mode string) {
	r.emitter.Emit(events.Event{Kind: kind, Transport: metrics.TransportSSH, Mode: mode, PID: r.pid, Device: r.device})
}

// CommandServed implements cli.Recorder.
func (r *eventReporter) CommandServed(result engine.Result) {
	r.emitter.Emit(events.Event{Kind: events.Command, Transport: metrics.TransportSSH, PID: r.pid, Device: r.device,
		Error: string(result.Err)})
}
