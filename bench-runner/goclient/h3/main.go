// Command goclient-h3 runs one of the lab's HTTP/3 modes with quic-go's HTTP/3 client, for
// bench-runner, speaking the same protocol as goclient (internal/program).
//
// Usage: goclient-h3 version | goclient-h3 modes | goclient-h3 <mode>
package main

import (
	"os"

	"transportlab/goclient/h3/internal/quicgo"
	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/program"
)

var goclientH3 = program.Program{
	Name:    "goclient-h3",
	Library: buildinfo.Library{Name: "quic-go", Module: "github.com/quic-go/quic-go"},
	Modes:   quicgo.Modes,
}

func main() {
	os.Exit(goclientH3.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
