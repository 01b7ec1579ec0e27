// Package buildinfo names the client the program measures with its version, from the
// module versions the Go toolchain embeds in the binary.
package buildinfo

import "runtime/debug"

// Module is the measured client's module path.
const Module = "github.com/scrapli/scrapligo"

// Describe is "scrapligo v1.4.3 (go1.26.0)"; the version is "unknown" when the binary
// carries no build information for the module.
func Describe(info *debug.BuildInfo, ok bool) string {
	version, goVersion := "unknown", "unknown"
	if ok && info != nil {
		goVersion = info.GoVersion
		for _, dep := range info.Deps {
			if dep.Path != Module {
				continue
			}
			version = dep.Version
			if dep.Replace != nil {
				version = dep.Replace.Version
			}
		}
	}
	return "scrapligo " + version + " (" + goVersion + ")"
}

// Read describes the running binary.
func Read() string {
	return Describe(debug.ReadBuildInfo())
}
