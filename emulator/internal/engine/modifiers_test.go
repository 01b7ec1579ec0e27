package engine

import (
	"strings"
	"testing"
)

// newModifierEngine answers "show run" with a small running-config on the
// given platform.
func newModifierEngine(t *testing.T, platform string) *Engine {
	t.Helper()
	run, err := ParseTranscript("show running-config", "hostname {{.Hostname}}\n!\ninterface Loopback0\n"+
		" description Router ID\n ip address 10.0.0.1 255.255.255.255\n!\ninterface GigabitEthernet1\n"+
		" description uplink (core)\n shutdown\n!\nrouter ospf 1\n network 10.0.0.1 0.0.0.0 area 0\n!\nend\n")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Options{Hostname: "lab-r1", Platform: platform, StartedAt: bootTime}, []Transcript{run})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestModifiersOnIOS(t *testing.T) {
	e := newModifierEngine(t, "cisco_iosxe")
	cases := map[string]string{
		"show running-config | include ^hostname":  "hostname lab-r1\n",
		"sh run | i ^hostname":                     "hostname lab-r1\n",
		"sh run | inc description":                 " description Router ID\n description uplink (core)\n",
		"sh run | INCLUDE ^hostname":               "hostname lab-r1\n",
		"sh run |i ^hostname":                      "hostname lab-r1\n",
		"sh run | ex ^[ !]":                        "hostname lab-r1\ninterface Loopback0\ninterface GigabitEthernet1\nrouter ospf 1\nend\n",
		"sh run | be ^router":                      "router ospf 1\n network 10.0.0.1 0.0.0.0 area 0\n!\nend\n",
		"sh run | sec ospf":                        "router ospf 1\n network 10.0.0.1 0.0.0.0 area 0\n",
		"sh run | s shutdown":                      "interface GigabitEthernet1\n description uplink (core)\n shutdown\n",
		"sh run | count":                           "Number of lines which match regexp = 14\n",
		"sh run | c ^interface":                    "Number of lines which match regexp = 2\n",
		"sh run | include no match":                "",
		"sh run | include a b":                     "",
		"sh run | include hostname|router":         "hostname lab-r1\nrouter ospf 1\n",
		"sh run | i _\\(core\\)_":                  " description uplink (core)\n",
		"sh run | i ^end_":                         "end\n",
		"sh run | i Loopback0_":                    "interface Loopback0\n",
		"sh run | i [_]":                           "",
		"show running-config | include ^hostname ": "hostname lab-r1\n", // trailing spaces are part of the expression
		"show running-config | include ^ospf ":     "",
	}
	for line, want := range cases {
		r := e.NewSession(false).Execute(line)
		if !r.OK() || r.Output != want {
			t.Errorf("%q: got %+v, want %q", line, r, want)
		}
	}
	// One pipe only: a second "| include" is part of the expression,
	// which IOS reads as alternation ("^hostname " or " include ospf").
	if r := e.NewSession(false).Execute("sh run | i ^hostname | include ospf"); !r.OK() || r.Output != "hostname lab-r1\n" {
		t.Errorf("second pipe: %+v", r)
	}
	// Modifiers work after "do" in configuration mode, too.
	s := e.NewSession(false)
	s.Execute("configure terminal")
	if r := s.Execute("do show running-config | include ^hostname"); !r.OK() || r.Output != "hostname lab-r1\n" {
		t.Errorf("do with a modifier: %+v", r)
	}
	// Configuration lines keep their "|".
	if r := s.Execute("banner motd x|y"); !r.OK() {
		t.Errorf("config line with a pipe: %+v", r)
	}
}

func TestModifierErrorsOnIOS(t *testing.T) {
	e := newModifierEngine(t, "cisco_iosxe")
	cases := map[string]struct {
		kind   ErrorKind
		output string
	}{
		"show running-config | bogus x":   {ErrInvalidInput, "show running-config | bogus x\n                      ^\n% Invalid input detected at '^' marker.\n\n"},
		"show running-config | include (": {ErrInvalidInput, "show running-config | include (\n                              ^\n% Invalid input detected at '^' marker.\n\n"},
		"show running-config | include":   {ErrIncomplete, "% Incomplete command.\n\n"},
		"show running-config |":           {ErrIncomplete, "% Incomplete command.\n\n"},
		"show bogus | include x":          {ErrInvalidInput, "show bogus | include x\n     ^\n% Invalid input detected at '^' marker.\n\n"},
		"| include x":                     {ErrIncomplete, "% Incomplete command.\n\n"},
	}
	for line, want := range cases {
		r := e.NewSession(false).Execute(line)
		if r.Err != want.kind || r.Output != want.output {
			t.Errorf("%q: got %+v, want %s %q", line, r, want.kind, want.output)
		}
	}
	// In a PTY the caret is under the typed line, after the prompt.
	r := e.NewSession(true).Execute("sh run | i [")
	if want := strings.Repeat(" ", len("lab-r1#sh run | i ")) + "^\n"; !strings.HasPrefix(r.Output, want) {
		t.Errorf("echoed caret: %q", r.Output)
	}
}

func TestModifiersOnEOS(t *testing.T) {
	e := newModifierEngine(t, "arista_eos")
	cases := map[string]string{
		"show running-config | include ^hostname":                      "hostname lab-r1\n",
		"sh run | i description | e Router":                            " description uplink (core)\n",
		"sh run | section interface | include ^interface | exclude Gi": "interface Loopback0\n",
		"sh run | b ^router | i network":                               " network 10.0.0.1 0.0.0.0 area 0\n",
		"sh run | include hostname|router":                             "hostname lab-r1\nrouter ospf 1\n",
		"sh run | i ^interface_":                                       "",
	}
	for line, want := range cases {
		r := e.NewSession(false).Execute(line)
		if !r.OK() || r.Output != want {
			t.Errorf("%q: got %+v, want %q", line, r, want)
		}
	}
	for line, want := range map[string]string{
		"show running-config | count":       "% Invalid input (at token 3: 'count')\n",
		"show running-config | i x | count": "% Invalid input (at token 6: 'count')\n",
		"show running-config | include (":   "% Invalid input (at token 4: '(')\n",
	} {
		if r := e.NewSession(false).Execute(line); r.Err != ErrInvalidInput || r.Output != want {
			t.Errorf("%q: got %+v, want %q", line, r, want)
		}
	}
	if r := e.NewSession(false).Execute("show running-config | include x |"); r.Err != ErrIncomplete {
		t.Errorf("empty last filter: %+v", r)
	}
}

func TestOverlongLineIsRefused(t *testing.T) {
	e := newModifierEngine(t, "cisco_iosxe")
	line := "show running-config | include " + strings.Repeat("x", MaxLineLength)
	r := e.NewSession(false).Execute(line)
	want := "% Command line too long (4126 bytes; the limit is 4096)\n"
	if r.Err != ErrInvalidInput || r.Output != want {
		t.Errorf("got %+v, want %q", r, want)
	}
	if r := e.NewSession(false).Execute(line[:MaxLineLength]); !r.OK() {
		t.Errorf("line of exactly the limit: %+v", r)
	}
}
