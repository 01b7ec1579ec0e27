package grpcgo

import (
	"runtime/debug"
	"strings"

	"transportlab/goclient/internal/buildinfo"
)

var (
	grpcModule = buildinfo.Library{Name: "grpc-go", Module: "google.golang.org/grpc"}
	gnmiModule = buildinfo.Library{Name: "openconfig/gnmi", Module: "github.com/openconfig/gnmi"}
)

// Version is "grpc-go v1.85.0, openconfig/gnmi v0.14.1 (go1.26.8)", from the build
// information the Go toolchain embeds in the binary.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	return describe(info, ok)
}

func describe(info *debug.BuildInfo, ok bool) string {
	grpc := grpcModule.Describe(info, ok)
	gnmi := gnmiModule.Describe(info, ok)
	// Both end in the same " (goX)"; it is said once, at the end.
	cut := strings.LastIndex(grpc, " (")
	return grpc[:cut] + ", " + gnmi
}
