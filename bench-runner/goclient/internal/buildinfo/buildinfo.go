// Package buildinfo names the client a program measures with its version, from the module
// versions the Go toolchain embeds in the binary.
package buildinfo

import "runtime/debug"

// Library is a measured client library: the name it is labelled with and its module path.
type Library struct {
	Name   string
	Module string
}

// Describe is "scrapligo v1.4.3 (go1.26.0)"; the version is "unknown" when the binary
// carries no build information for the module.
func (l Library) Describe(info *debug.BuildInfo, ok bool) string {
	version, goVersion := "unknown", "unknown"
	if ok && info != nil {
		goVersion = info.GoVersion
		for _, dep := range info.Deps {
			if dep.Path != l.Module {
				continue
			}
			version = dep.Version
			if dep.Replace != nil {
				version = dep.Replace.Version
			}
		}
	}
	return l.Name + " " + version + " (" + goVersion + ")"
}

// Read describes the library in the running binary.
func (l Library) Read() string {
	return l.Describe(debug.ReadBuildInfo())
}
