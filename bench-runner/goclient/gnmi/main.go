// Command goclient-gnmi runs one of the lab's gNMI modes with grpc-go and the gNMI proto of
// openconfig/gnmi, for bench-runner, speaking the same protocol as goclient
// (internal/program).
//
// Usage: goclient-gnmi version | goclient-gnmi modes | goclient-gnmi <mode>
package main

import (
	"os"

	"transportlab/goclient/gnmi/internal/grpcgo"
	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/program"
)

var goclientGNMI = program.Program{
	Name:    "goclient-gnmi",
	Library: buildinfo.Library{Name: "grpc-go", Module: "google.golang.org/grpc"},
	Modes:   grpcgo.Modes,
}

func main() {
	args := os.Args[1:]
	// The version names the gNMI proto's module beside grpc-go's: both are what is measured.
	if len(args) == 1 && args[0] == "version" {
		os.Stdout.WriteString(grpcgo.Version() + "\n")
		return
	}
	os.Exit(goclientGNMI.Main(args, os.Stdin, os.Stdout, os.Stderr))
}
