// Command device is the Transport Lab's emulated network device. One binary
// serves every role in the container:
//
//	device serve        API socket (behind nginx), HTTP/3 on UDP 443, metrics on :9100,
//	                    SSH event sink
//	device shell [-c …] the SSH login shell (also chosen when invoked as a login
//	                    shell "-device-shell" or as "device-shell")
//	device netconf      the sshd NETCONF subsystem (relays to the daemon)
//	device healthcheck  exit 0 when sshd, nginx, HTTP/3 and metrics answer
//	device fleet        print the emulated devices: index, name, crypto profile, address
//	device crypto       write each crypto profile's sshd and nginx configuration
//	device version      print the emulator version
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"transportlab/emulator/internal/settings"
	"transportlab/emulator/internal/version"
)

const usage = `usage: device serve|shell|netconf|healthcheck|fleet|crypto|version [flags]
       device-shell [-c "commands"]`

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	// sshd starts a login shell as "-device-shell" and an exec request as
	// "device-shell -c <commands>".
	name := filepath.Base(args[0])
	if strings.HasPrefix(name, "-") || name == "device-shell" {
		return runShell(args[1:])
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	switch args[1] {
	case "serve":
		return runServe(args[2:])
	case "shell":
		return runShell(args[2:])
	case "netconf":
		flags := flag.NewFlagSet("device netconf", flag.ContinueOnError)
		settingsPath := flags.String("settings", settings.DefaultPath, "device settings file")
		if err := flags.Parse(args[2:]); err != nil {
			return 2
		}
		return runNetconf(*settingsPath)
	case "healthcheck":
		return runHealthcheck(args[2:])
	case "fleet":
		return runFleet(args[2:])
	case "crypto":
		return runCrypto(args[2:])
	case "version":
		fmt.Println(version.Version)
		return 0
	default:
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
}
