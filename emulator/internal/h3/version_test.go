package h3

import (
	"runtime/debug"
	"testing"
)

func TestSoftwareNamesTheBuildsQuicGo(t *testing.T) {
	for _, c := range []struct {
		deps []*debug.Module
		want string
	}{
		{[]*debug.Module{{Path: "golang.org/x/net", Version: "v0.59.0"}, {Path: quicGoModule, Version: "v0.65.0"}},
			"quic-go v0.65.0"},
		{[]*debug.Module{{Path: quicGoModule, Version: "v0.65.0", Replace: &debug.Module{Path: "../quic-go", Version: "(devel)"}}},
			"quic-go (devel)"},
		{nil, "quic-go (not in the build information)"},
	} {
		if got := softwareIn(&debug.BuildInfo{Deps: c.deps}); got != c.want {
			t.Errorf("%v: %q, want %q", c.deps, got, c.want)
		}
	}
}
