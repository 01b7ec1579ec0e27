// Package version carries the emulator's release version, stamped at build
// time with -ldflags "-X transportlab/emulator/internal/version.Version=...".
package version

// Version of the device emulator; "dev" for unstamped builds.
var Version = "dev"
