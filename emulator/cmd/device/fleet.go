package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"transportlab/emulator/internal/fleet"
	"transportlab/emulator/internal/settings"
)

// deviceOfConnection is the device an SSH session is on: the one owning
// the local address its client connected to, from sshd's SSH_CONNECTION
// ("client_ip client_port server_ip server_port"); device 1 without it.
func deviceOfConnection(plan fleet.Plan, sshConnection string) fleet.Device {
	fields := strings.Fields(sshConnection)
	if len(fields) != 4 {
		return plan.Devices()[0]
	}
	return plan.ForAddressText(fields[2])
}

// runFleet prints the fleet the settings describe, one device a line:
// index, name, crypto profile and address, tab-separated (the address is
// empty without an address block, and last: the shell's read collapses
// consecutive tabs). The entrypoint checks the settings with it and takes
// the TLS certificate's addresses from it.
func runFleet(args []string) int {
	flags := flag.NewFlagSet("device fleet", flag.ContinueOnError)
	settingsPath := flags.String("settings", settings.DefaultPath, "device settings file")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	s, err := settings.Load(*settingsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "device fleet: %v\n", err)
		return 1
	}
	for _, d := range s.Fleet.Devices() {
		address := ""
		if d.Address.IsValid() {
			address = d.Address.String()
		}
		fmt.Printf("%d\t%s\t%s\t%s\n", d.Index, d.Name, s.Crypto[d.Index-1].Name, address)
	}
	return 0
}
