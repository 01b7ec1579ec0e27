package engine

import (
	"strings"
	"testing"
)

// FuzzExecute feeds arbitrary lines through every mode of a session. The
// engine faces untrusted input from SSH and HTTPS, so it must never panic,
// and every failure must carry an IOS-style message.
func FuzzExecute(f *testing.F) {
	for _, seed := range []string{"sh ver", "show foo", "sh i", "conf t", "int Gi1", "do sh clo",
		"terminal length 0", "hostname a b", "\t\x00", "é ^", "no", ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		// A fresh engine per input keeps remembered configuration bounded.
		s := newTestEngine(t).NewSession(true)
		for _, prefix := range []string{"", "configure terminal", "interface Loopback9"} {
			if prefix != "" {
				s.Execute(prefix)
			}
			r := s.Execute(line)
			if !r.OK() && !strings.HasPrefix(strings.TrimLeft(r.Output, " ^\n"), "%") &&
				!strings.Contains(r.Output, "\n% ") {
				t.Fatalf("error without IOS message for %q: %+v", line, r)
			}
		}
	})
}
