// Package cli is ssh/pty-fresh with scrapligo's network driver (the cisco_iosxe platform,
// as the runner's scrapli clients use IOSXEDriver) over its standard transport
// (golang.org/x/crypto/ssh; Go's TCP sockets have TCP_NODELAY set).
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/util"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
)

// Platform is the scrapligo platform definition the driver is built from.
const Platform = "cisco_iosxe"

// Transport is scrapligo's transport plugin the program uses.
const Transport = "standard"

// PtyFresh opens a driver per iteration: connection, PTY shell, privilege check and the
// platform's terminal setup; one SendCommand per command; Close.
type PtyFresh struct {
	j     job.Job
	creds job.Credentials
}

// NewPtyFresh keeps what every iteration needs; it opens nothing.
func NewPtyFresh(j job.Job, creds job.Credentials) *PtyFresh {
	return &PtyFresh{j: j, creds: creds}
}

func (p *PtyFresh) driver() (*network.Driver, error) {
	opts := []util.Option{
		options.WithTransportType(Transport),
		options.WithPort(p.j.Port),
		options.WithAuthUsername(p.creds.Username),
		options.WithAuthPassword(p.creds.Password),
		options.WithAuthNoStrictKey(),
		options.WithTimeoutSocket(p.j.Timeout()),
		options.WithTimeoutOps(p.j.Timeout()),
	}
	plat, err := platform.NewPlatform(Platform, p.j.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("platform %s: %w", Platform, err)
	}
	return plat.GetNetworkDriver()
}

// Iterate runs one iteration; phases connect, commands, close.
func (p *PtyFresh) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	d, err := p.driver()
	if err != nil {
		return loop.Result{Err: err, Phases: phases}
	}
	if err := phases.Measure("connect", d.Open); err != nil {
		return loop.Result{Err: fmt.Errorf("open: %w", err), Phases: phases}
	}
	outputs := make([]string, 0, len(commands))
	err = phases.Measure("commands", func() error {
		for _, command := range commands {
			r, err := d.SendCommand(command)
			if err != nil {
				return fmt.Errorf("%s: %w", command, err)
			}
			outputs = append(outputs, r.Result)
		}
		return nil
	})
	closeErr := phases.Measure("close", d.Close)
	// Close writes "exit"; the device ending the session before the driver has closed its
	// side surfaces as io.EOF, which is the exit having worked.
	if err == nil && closeErr != nil && !errors.Is(closeErr, io.EOF) {
		err = fmt.Errorf("close: %w", closeErr)
	}
	return loop.Result{Outputs: outputs, Phases: phases, Err: err}
}
