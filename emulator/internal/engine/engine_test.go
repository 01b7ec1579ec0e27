package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

var bootTime = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// newTestEngine builds an engine over small in-memory transcripts with a
// pinned clock, so outputs are deterministic.
func newTestEngine(t testing.TB) *Engine {
	t.Helper()
	bodies := map[string]string{
		"show version":            "{{.Hostname}} uptime is {{.Uptime}}\nPlatform {{.Platform}}\n",
		"show clock":              "{{.Clock}}",
		"show ip interface brief": "Interface  IP-Address\nGigabitEthernet1  198.18.0.2\n",
		"show interfaces":         "GigabitEthernet1 is up, line protocol is up\n",
		"show inventory":          "NAME: \"Chassis\"\n",
		"show running-config":     "hostname {{.Hostname}}\n!\n{{range .ConfigLines}}{{.}}\n{{end}}end\n",
	}
	var transcripts []Transcript
	for cmd, body := range bodies {
		tr, err := ParseTranscript(cmd, body)
		if err != nil {
			t.Fatal(err)
		}
		transcripts = append(transcripts, tr)
	}
	now := bootTime.Add(2*24*time.Hour + 3*time.Hour + 1*time.Minute + 12345*time.Millisecond)
	e, err := New(Options{Hostname: "lab-r1", Platform: "cisco_iosxe", Version: "test", StartedAt: bootTime,
		Now: func() time.Time { return now }}, transcripts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCommandFromFilename(t *testing.T) {
	cases := map[string]string{
		"show_ip_interface_brief.txt": "show ip interface brief",
		"/x/show_running-config.txt":  "show running-config",
		"show_version.txt":            "show version",
		"Show__Inventory.txt":         "show inventory",
	}
	for in, want := range cases {
		if got := CommandFromFilename(in); got != want {
			t.Errorf("CommandFromFilename(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExactAndAbbreviatedCommands(t *testing.T) {
	e := newTestEngine(t)
	want := "lab-r1 uptime is 2 days, 3 hours, 1 minute\nPlatform cisco_iosxe\n"
	for _, line := range []string{"show version", "sh ver", "SHOW VERSION", "  sh   v  ", "show version\r\n"} {
		r := e.NewSession(false).Execute(line)
		if !r.OK() || r.Output != want {
			t.Errorf("%q: got %+v, want output %q", line, r, want)
		}
	}
	for line, want := range map[string]string{
		"sh ip int br": "Interface  IP-Address\nGigabitEthernet1  198.18.0.2\n",
		"sh int":       "GigabitEthernet1 is up, line protocol is up\n",
		"sh inv":       "NAME: \"Chassis\"\n",
		"sh clock":     "*11:01:12.345 UTC Sun Nov 22 2026\n",
	} {
		if r := e.NewSession(false).Execute(line); !r.OK() || r.Output != want {
			t.Errorf("%q: got %+v, want %q", line, r, want)
		}
	}
}

func TestInvalidInputPlacesCaret(t *testing.T) {
	e := newTestEngine(t)
	r := e.NewSession(false).Execute("show foo")
	want := "show foo\n     ^\n% Invalid input detected at '^' marker.\n\n"
	if r.Err != ErrInvalidInput || r.Output != want {
		t.Fatalf("got %+v, want %q", r, want)
	}
	// An echoing front-end already shows "lab-r1#show foo": the caret is
	// shifted by the prompt and the line is not repeated.
	r = e.NewSession(true).Execute("show foo")
	want = strings.Repeat(" ", len("lab-r1#show ")) + "^\n% Invalid input detected at '^' marker.\n\n"
	if r.Output != want {
		t.Fatalf("echoed: got %q, want %q", r.Output, want)
	}
	if r := e.NewSession(false).Execute("show version extra"); r.Err != ErrInvalidInput ||
		!strings.HasPrefix(r.Output, "show version extra\n             ^\n") {
		t.Fatalf("trailing word: got %+v", r)
	}
}

func TestAmbiguousAndIncomplete(t *testing.T) {
	e := newTestEngine(t)
	r := e.NewSession(false).Execute("sh i")
	if r.Err != ErrAmbiguous || r.Output != "% Ambiguous command: \"sh i\"\n" {
		t.Fatalf("ambiguous: got %+v", r)
	}
	r = e.NewSession(false).Execute("show")
	if r.Err != ErrIncomplete || r.Output != "% Incomplete command.\n\n" {
		t.Fatalf("incomplete: got %+v", r)
	}
}

func TestTerminalSettings(t *testing.T) {
	e := newTestEngine(t)
	s := e.NewSession(true)
	for _, line := range []string{"terminal length 0", "terminal width 511", "term len 24"} {
		if r := s.Execute(line); !r.OK() || r.Output != "" {
			t.Errorf("%q: got %+v", line, r)
		}
	}
	for _, line := range []string{"terminal length 513", "terminal length x", "terminal length"} {
		if r := s.Execute(line); r.OK() {
			t.Errorf("%q: accepted, want an error", line)
		}
	}
}

func TestConfigModeIsRememberedAndShown(t *testing.T) {
	e := newTestEngine(t)
	s := e.NewSession(true)
	steps := []struct{ line, prompt string }{
		{"conf t", "lab-r1(config)#"},
		{"int Loopback0", "lab-r1(config-if)#"},
		{"ip address 10.0.0.1 255.255.255.255", "lab-r1(config-if)#"},
		{"exit", "lab-r1(config)#"},
		{"ntp server 198.18.0.1", "lab-r1(config)#"},
		{"no ip domain lookup", "lab-r1(config)#"},
		{"hostname core-1", "core-1(config)#"},
		{"end", "core-1#"},
	}
	for _, step := range steps {
		if r := s.Execute(step.line); !r.OK() {
			t.Fatalf("%q failed: %q", step.line, r.Output)
		}
		if got := s.Prompt(); got != step.prompt {
			t.Fatalf("after %q prompt = %q, want %q", step.line, got, step.prompt)
		}
	}
	want := "hostname core-1\n!\ninterface Loopback0\n ip address 10.0.0.1 255.255.255.255\n!\n" +
		"ntp server 198.18.0.1\nno ip domain lookup\nend\n"
	// Another session sees the same configuration.
	if r := e.NewSession(false).Execute("show running-config"); r.Output != want {
		t.Fatalf("running-config:\n%s\nwant:\n%s", r.Output, want)
	}
}

func TestConfigModeErrorsAndDo(t *testing.T) {
	e := newTestEngine(t)
	s := e.NewSession(false)
	s.Execute("configure terminal")
	if r := s.Execute("frobnicate now"); r.Err != ErrInvalidInput {
		t.Fatalf("unknown config keyword accepted: %+v", r)
	}
	if r := s.Execute("i"); r.Err != ErrAmbiguous {
		t.Fatalf("\"i\" should be ambiguous (interface/ip/ipv6): %+v", r)
	}
	if r := s.Execute("ntp"); r.Err != ErrIncomplete {
		t.Fatalf("bare ntp: %+v", r)
	}
	if r := s.Execute("hostname a b"); r.Err != ErrInvalidInput || !strings.Contains(r.Output, "hostname a b\n           ^") {
		t.Fatalf("hostname with two words: %q", r.Output)
	}
	if r := s.Execute("do sh ver"); !r.OK() || !strings.HasPrefix(r.Output, "lab-r1 uptime") {
		t.Fatalf("do sh ver: %+v", r)
	}
	if r := s.Execute("do sh bogus"); r.Err != ErrInvalidInput || !strings.Contains(r.Output, "do sh bogus\n      ^") {
		t.Fatalf("do with bad command: %q", r.Output)
	}
	if !s.InConfigMode() {
		t.Fatal("errors must not leave config mode")
	}
	if r := s.Execute("exit"); !r.OK() || r.Exit || s.InConfigMode() {
		t.Fatalf("exit from config: %+v", r)
	}
	if r := s.Execute("exit"); !r.Exit {
		t.Fatalf("exit from exec must end the session: %+v", r)
	}
}

func TestNegationRemovesBlock(t *testing.T) {
	e := newTestEngine(t)
	s := e.NewSession(false)
	for _, line := range []string{"conf t", "interface Loopback1", "description test", "exit", "no interface Loopback1", "end"} {
		if r := s.Execute(line); !r.OK() {
			t.Fatalf("%q: %q", line, r.Output)
		}
	}
	if r := s.Execute("show running-config"); r.Output != "hostname lab-r1\n!\nend\n" {
		t.Fatalf("config after removal: %q", r.Output)
	}
}

func TestTemplateErrorsAreCaughtAtLoad(t *testing.T) {
	if _, err := ParseTranscript("show x", "{{.NoSuchField}}"); err == nil {
		t.Fatal("unknown template field accepted")
	}
	if _, err := ParseTranscript("show x", "{{.Hostname"); err == nil {
		t.Fatal("broken template accepted")
	}
}

func TestDuplicateCommandRejected(t *testing.T) {
	a, _ := ParseTranscript("show version", "a")
	b, _ := ParseTranscript("Show  Version", "b")
	if _, err := New(Options{Hostname: "r1"}, []Transcript{a, b}); err == nil {
		t.Fatal("duplicate transcript accepted")
	}
}

func TestFormatUptime(t *testing.T) {
	cases := map[time.Duration]string{
		30 * time.Second:                   "0 minutes",
		61 * time.Minute:                   "1 hour, 1 minute",
		(7*24+2)*time.Hour + time.Minute*5: "1 week, 2 hours, 5 minutes",
	}
	for d, want := range cases {
		if got := formatUptime(d); got != want {
			t.Errorf("formatUptime(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestLargeOutputs(t *testing.T) {
	e := newTestEngine(t)
	for _, n := range []int{1, 63, 64, 65, 1000, 1 << 20} {
		r := e.NewSession(false).Execute(fmt.Sprintf("show payload %d", n))
		if !r.OK() || len(r.Output) != n || !strings.HasSuffix(r.Output, "\n") {
			t.Fatalf("show payload %d: ok=%v len=%d", n, r.OK(), len(r.Output))
		}
	}
	if r := e.NewSession(false).Execute(fmt.Sprintf("show payload %d", MaxPayload+1)); r.OK() {
		t.Fatal("oversized payload accepted")
	}
	r := e.NewSession(false).Execute("sh tech")
	if !r.OK() || len(r.Output) < TechSupportSize || len(r.Output) > TechSupportSize+64*1024 ||
		!strings.Contains(r.Output, "------------------ show version (pass 1) ------------------") {
		t.Fatalf("show tech-support: ok=%v len=%d", r.OK(), len(r.Output))
	}
}

func TestTerminalLength(t *testing.T) {
	e := newTestEngine(t)
	if s := e.NewSession(true); s.TerminalLength() != DefaultTerminalLength {
		t.Fatalf("interactive default %d", s.TerminalLength())
	}
	s := e.NewSession(false)
	if s.TerminalLength() != 0 {
		t.Fatal("exec sessions must not page")
	}
	s.Execute("terminal length 40")
	if s.TerminalLength() != 40 {
		t.Fatalf("length %d", s.TerminalLength())
	}
	if r := s.Execute("terminal length 513"); r.OK() {
		t.Fatal("IOS accepted length 513")
	}
}

func TestCommandDelay(t *testing.T) {
	e, err := New(Options{Hostname: "r", StartedAt: bootTime, CommandDelay: 30 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewSession(false)
	start := time.Now()
	s.Execute("terminal length 0")
	if time.Since(start) < 30*time.Millisecond {
		t.Fatal("command answered before the configured delay")
	}
	start = time.Now()
	s.Execute("   ")
	if time.Since(start) >= 30*time.Millisecond {
		t.Fatal("blank line delayed")
	}
}

func TestCommandJitterDrawsWithinItsRange(t *testing.T) {
	e, err := New(Options{Hostname: "r", StartedAt: bootTime,
		CommandDelay: 5 * time.Millisecond, CommandJitter: 20 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[time.Duration]bool{}
	for range 200 {
		d := e.commandDelay()
		if d < 5*time.Millisecond || d >= 25*time.Millisecond {
			t.Fatalf("delay %v outside [5ms, 25ms)", d)
		}
		seen[d] = true
	}
	// 200 draws from 20 million nanoseconds: a repeat is all but impossible, a constant is a bug.
	if len(seen) < 190 {
		t.Fatalf("only %d distinct delays in 200 draws", len(seen))
	}
	fixed, err := New(Options{Hostname: "r", StartedAt: bootTime, CommandDelay: 5 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := fixed.commandDelay(); d != 5*time.Millisecond {
		t.Fatalf("without jitter the delay is %v, not the fixed 5ms", d)
	}
}

func TestAristaEOS(t *testing.T) {
	ver, _ := ParseTranscript("show version", "Arista vEOS-lab\n")
	vlan, _ := ParseTranscript("show vlan", "VLAN  Name\n")
	e, err := New(Options{Hostname: "lab-r2", Platform: "arista_eos", StartedAt: bootTime}, []Transcript{ver, vlan})
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewSession(true)
	if r := s.Execute("show bogus"); r.Err != ErrInvalidInput || r.Output != "% Invalid input (at token 1: 'bogus')\n" {
		t.Fatalf("invalid input: %+v", r)
	}
	if r := s.Execute("terminal width 32767"); !r.OK() || r.Output != "Width set to 32767 columns.\n" {
		t.Fatalf("EOS terminal width: %+v", r)
	}
	if r := s.Execute("configure"); !r.OK() || r.Output != "" || s.Prompt() != "lab-r2(config)#" {
		t.Fatalf("configure: %+v prompt %q", r, s.Prompt())
	}
	s.Execute("interface Ethernet1")
	if s.Prompt() != "lab-r2(config-if-Et1)#" {
		t.Fatalf("interface prompt %q", s.Prompt())
	}
	s.Execute("end")
	if r := s.Execute("sh v"); r.Err != ErrAmbiguous || r.Output != "% Ambiguous command\n" {
		t.Fatalf("ambiguous: %+v", r)
	}
	if _, err := New(Options{Hostname: "x", Platform: "junos"}, nil); err == nil {
		t.Fatal("unknown platform accepted")
	}
}
