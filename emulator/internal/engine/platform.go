package engine

import (
	"fmt"
	"strings"
)

// platform holds what differs between the emulated operating systems: the
// text of messages, prompts of sub-modes and accepted terminal settings.
type platform struct {
	// configBanner is printed by "configure terminal".
	configBanner string
	// configureAlone makes "configure" on its own enter configuration mode.
	configureAlone bool
	// terminalMax is the largest "terminal length"/"terminal width".
	terminalMax int
	// lengthSet and widthSet confirm terminal settings (EOS does, IOS
	// is silent); nil prints nothing.
	lengthSet, widthSet func(n int) string
	// subPrompt is the prompt tag of a sub-mode, e.g. "config-if".
	subPrompt func(tag, header string) string
	// invalid renders an invalid-input error; word is the offending token,
	// index its 0-based position.
	invalid func(line, word string, index, column int, prompt string, echoed bool) string
	// ambiguous renders an ambiguous-command error.
	ambiguous func(line string) string
	// modifiers are the output filters accepted after "|" (modifiers.go).
	modifiers []string
	// chainedPipes: a later "|" starts another filter (EOS); IOS takes one
	// "|", and the rest of the line is its regular expression.
	chainedPipes bool
	// regex turns a filter's expression into RE2 syntax.
	regex func(expr string) string
}

// Platforms lists the supported DEVICE_PLATFORM values.
var Platforms = []string{"cisco_iosxe", "arista_eos"}

func lookupPlatform(name string) (*platform, error) {
	switch name {
	case "", "cisco_iosxe":
		return iosxe, nil
	case "arista_eos":
		return eos, nil
	}
	return nil, fmt.Errorf("unknown platform %q (supported: %s)", name, strings.Join(Platforms, ", "))
}

var iosxe = &platform{
	configBanner: "Enter configuration commands, one per line.  End with CNTL/Z.\n",
	terminalMax:  512,
	subPrompt:    func(tag, _ string) string { return tag },
	// IOS puts a caret under the offending word: shifted by the prompt
	// when the line is already on screen, else under a repeated line.
	invalid: func(line, _ string, _, column int, prompt string, echoed bool) string {
		var b strings.Builder
		if echoed {
			column += len([]rune(prompt))
		} else {
			b.WriteString(line)
			b.WriteString("\n")
		}
		b.WriteString(strings.Repeat(" ", column))
		b.WriteString("^\n% Invalid input detected at '^' marker.\n\n")
		return b.String()
	},
	ambiguous: func(line string) string {
		return fmt.Sprintf("%% Ambiguous command: %q\n", strings.TrimSpace(line))
	},
	modifiers: []string{"begin", "count", "exclude", "include", "section"},
	regex:     iosRegex,
}

// eos follows Arista EOS: no caret, the token is named instead; interface
// sub-mode prompts carry the short interface name ("config-if-Et1").
var eos = &platform{
	configureAlone: true,
	terminalMax:    32767,
	lengthSet: func(n int) string {
		if n == 0 {
			return "Pagination disabled.\n"
		}
		return fmt.Sprintf("Pagination set to %d lines.\n", n)
	},
	widthSet: func(n int) string { return fmt.Sprintf("Width set to %d columns.\n", n) },
	subPrompt: func(tag, header string) string {
		if tag != "config-if" {
			return tag
		}
		return tag + "-" + eosShortInterface(strings.TrimSpace(strings.TrimPrefix(header, "interface")))
	},
	invalid: func(_, word string, index, _ int, _ string, _ bool) string {
		return fmt.Sprintf("%% Invalid input (at token %d: '%s')\n", index, word)
	},
	ambiguous: func(string) string { return "% Ambiguous command\n" },
	// EOS has no "count" (its pipes also take Linux filters such as
	// "wc -l", which are not emulated).
	modifiers:    []string{"begin", "exclude", "include", "section"},
	chainedPipes: true,
	regex:        func(expr string) string { return expr },
}

// eosShortInterface abbreviates "Ethernet1" to "Et1", "Loopback0" to "Lo0".
func eosShortInterface(name string) string {
	for long, short := range map[string]string{"ethernet": "Et", "loopback": "Lo", "management": "Ma",
		"port-channel": "Po", "vlan": "Vl"} {
		if rest, ok := cutPrefixFold(name, long); ok {
			return short + strings.TrimSpace(rest)
		}
	}
	return name
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
