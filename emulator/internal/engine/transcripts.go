package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
	"time"

	"transportlab/emulator/internal/ifstate"
)

// Transcript is the canned output of one exec command.
type Transcript struct {
	// Command is the full command, e.g. "show ip interface brief".
	Command  string
	template *template.Template
	// usesConfig: the template shows .ConfigLines or .Interfaces, so
	// rendering it asks the configuration store (others never do).
	usesConfig bool
}

// CommandFromFilename maps "show_ip_interface_brief.txt" to
// "show ip interface brief": underscores separate words, other characters
// (such as the hyphen in running-config) are kept.
func CommandFromFilename(name string) string {
	base := strings.TrimSuffix(filepath.Base(name), ".txt")
	return strings.ToLower(strings.Join(strings.FieldsFunc(base, func(r rune) bool { return r == '_' }), " "))
}

// ParseTranscript compiles one transcript body. It is rendered once with
// sample data so a template referring to unknown fields fails at start-up,
// not in the middle of a benchmark.
func ParseTranscript(command, body string) (Transcript, error) {
	tmpl, err := template.New(command).Parse(body)
	if err != nil {
		return Transcript{}, fmt.Errorf("transcript %q: %w", command, err)
	}
	sample := TemplateData{Hostname: "sample", Platform: "sample", Version: "sample", Uptime: "1 minute", Clock: "sample",
		ConfigLines: []string{"sample"}, Interfaces: sampleInterfaces, Now: time.Unix(0, 0).UTC()}
	if err := tmpl.Execute(&strings.Builder{}, sample); err != nil {
		return Transcript{}, fmt.Errorf("transcript %q: %w", command, err)
	}
	return Transcript{Command: command, template: tmpl,
		usesConfig: strings.Contains(body, ".ConfigLines") || strings.Contains(body, ".Interfaces")}, nil
}

// sampleInterfaces cover every kind of interface a template may treat
// differently: up with an address, shut down, a loopback.
var sampleInterfaces = ifstate.Snapshot(ifstate.FromRunningConfig([]string{
	"interface Ethernet1", " description sample", " ip address 192.0.2.1 255.255.255.0",
	"interface Ethernet2", " shutdown", "interface Loopback0", " ip address 192.0.2.9/32"}), time.Minute)

// LoadTranscripts reads every *.txt file of dir, sorted by command.
func LoadTranscripts(dir string) ([]Transcript, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no transcripts (*.txt) in %s", dir)
	}
	sort.Strings(paths)
	transcripts := make([]Transcript, 0, len(paths))
	for _, path := range paths {
		body, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		t, err := ParseTranscript(CommandFromFilename(path), string(body))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		transcripts = append(transcripts, t)
	}
	return transcripts, nil
}

// TemplateData is what transcripts can reference, e.g. {{.Hostname}}.
type TemplateData struct {
	Hostname string
	Platform string
	// Version is the emulator's own version.
	Version string
	// Uptime is IOS style: "2 days, 3 hours, 4 minutes".
	Uptime string
	// Clock is IOS "show clock" style: "*10:58:12.345 UTC Sat Nov 22 2026".
	Clock string
	// ConfigLines is the configuration held by the device's configuration
	// store (entered in configuration mode, or over NETCONF/RESTCONF for
	// what maps to CLI lines), in running-config form (sub-mode lines
	// indented by one space).
	ConfigLines []string
	// Interfaces are the interfaces of ConfigLines with their state and
	// counters at this moment of the device's uptime (internal/ifstate),
	// as "show interfaces" lists them.
	Interfaces []ifstate.State
	// Now is the current time in UTC, for platform-specific clock formats
	// ({{.Now.Format "Mon Jan _2 15:04:05 2006"}}).
	Now time.Time
}

// formatUptime renders a duration the way "show version" does: zero
// units are left out except minutes.
func formatUptime(d time.Duration) string {
	minutes := int(d / time.Minute)
	units := []struct {
		name string
		size int
	}{{"week", 7 * 24 * 60}, {"day", 24 * 60}, {"hour", 60}}
	var parts []string
	for _, u := range units {
		if n := minutes / u.size; n > 0 {
			parts = append(parts, plural(n, u.name))
			minutes -= n * u.size
		}
	}
	return strings.Join(append(parts, plural(minutes, "minute")), ", ")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// formatClock renders a time the way "show clock" does; the leading "*"
// is what IOS prints when the clock is not NTP-synchronised.
func formatClock(t time.Time) string {
	return "*" + t.UTC().Format("15:04:05.000 UTC Mon Jan 2 2006")
}
