package main

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/term"

	"transportlab/emulator/internal/netconf/subsystem"
	"transportlab/emulator/internal/settings"
)

// netconfSubsystem is the sshd_config "Subsystem netconf" command. sshd
// runs it through the account's login shell (device-shell -c "<command>"),
// so the shell recognises it and relays instead of running CLI commands.
const netconfSubsystem = "/usr/local/bin/device netconf"

// runNetconf is the sshd subsystem process: it relays the SSH channel
// (stdin/stdout) to the daemon's NETCONF socket, for the device of the
// fleet whose address the client connected to.
func runNetconf(settingsPath string) int {
	s, err := settings.Load(settingsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netconf: device not ready: %v\n", err)
		return 1
	}
	// A client that asked for a PTY must not get echo or "\r\n" translation.
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		if saved, err := term.MakeRaw(fd); err == nil {
			defer term.Restore(fd, saved)
		}
	}
	conn, err := net.Dial("unix", s.NetconfSocket)
	if err != nil {
		fmt.Fprintf(os.Stderr, "netconf: device not ready: %v\n", err)
		return 1
	}
	device := deviceOfConnection(s.Fleet, os.Getenv("SSH_CONNECTION"))
	if err := subsystem.Relay(conn.(*net.UnixConn), device.Index, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "netconf: %v\n", err)
		return 1
	}
	return 0
}
