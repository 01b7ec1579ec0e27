package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestDescribe(t *testing.T) {
	info := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Deps:      []*debug.Module{{Path: "golang.org/x/crypto", Version: "v0.26.0"}, {Path: Module, Version: "v1.4.3"}},
	}
	if got := Describe(info, true); got != "scrapligo v1.4.3 (go1.26.0)" {
		t.Fatalf("got %s", got)
	}
	info.Deps[1].Replace = &debug.Module{Path: "../scrapligo", Version: "v1.4.4-dev"}
	if got := Describe(info, true); got != "scrapligo v1.4.4-dev (go1.26.0)" {
		t.Fatalf("replaced: got %s", got)
	}
	if got := Describe(nil, false); got != "scrapligo unknown (unknown)" {
		t.Fatalf("no build info: got %s", got)
	}
}
