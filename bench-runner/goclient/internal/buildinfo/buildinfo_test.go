package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	lib := Library{Name: "scrapligo", Module: "github.com/scrapli/scrapligo"}
	info := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Deps:      []*debug.Module{{Path: "golang.org/x/crypto", Version: "v0.26.0"}, {Path: lib.Module, Version: "v1.4.3"}},
	}
	if got := lib.Describe(info, true); got != "scrapligo v1.4.3 (go1.26.0)" {
		t.Fatalf("got %s", got)
	}
	info.Deps[1].Replace = &debug.Module{Path: "../scrapligo", Version: "v1.4.4-dev"}
	if got := lib.Describe(info, true); got != "scrapligo v1.4.4-dev (go1.26.0)" {
		t.Fatalf("replaced: got %s", got)
	}
	if got := lib.Describe(nil, false); got != "scrapligo unknown (unknown)" {
		t.Fatalf("no build info: got %s", got)
	}
	other := Library{Name: "quic-go", Module: "github.com/quic-go/quic-go"}
	if got := other.Describe(info, true); got != "quic-go unknown (go1.26.0)" {
		t.Fatalf("a library the binary does not hold: got %s", got)
	}
}
