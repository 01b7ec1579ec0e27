package gnmi

import (
	"runtime/debug"
	"testing"
)

func TestSoftwareNamesTheBuildsModules(t *testing.T) {
	gnmi := &debug.Module{Path: "github.com/openconfig/gnmi", Version: "v0.14.1"}
	grpc := &debug.Module{Path: "google.golang.org/grpc", Version: "v1.85.0"}
	for _, c := range []struct {
		deps []*debug.Module
		want string
	}{
		{[]*debug.Module{{Path: "golang.org/x/net", Version: "v0.60.0"}, grpc, gnmi},
			"openconfig/gnmi v0.14.1, grpc-go v1.85.0"},
		{[]*debug.Module{gnmi, {Path: grpc.Path, Version: grpc.Version, Replace: &debug.Module{Path: "../grpc-go", Version: "(devel)"}}},
			"openconfig/gnmi v0.14.1, grpc-go (devel)"},
		{nil, "openconfig/gnmi (not in the build information), grpc-go (not in the build information)"},
	} {
		if got := softwareIn(&debug.BuildInfo{Deps: c.deps}); got != c.want {
			t.Errorf("%v: %q, want %q", c.deps, got, c.want)
		}
	}
}
