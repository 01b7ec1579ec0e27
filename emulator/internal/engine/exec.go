package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// TechSupportSize is the least size of "show tech-support" output.
const TechSupportSize = 1 << 20

// MaxPayload bounds "show payload <bytes>".
const MaxPayload = 64 << 20

// execGrammar holds the privileged exec built-ins; transcripts are added to
// the same tree by New.
func execGrammar(p *platform) *node {
	root := &node{}
	enterConfig := func(s *Session, _ []string) Result {
		s.mode = modeConfig
		return output(p.configBanner)
	}
	configure := root.keyword("configure")
	configure.keyword("terminal").run = enterConfig
	if p.configureAlone {
		configure.run = enterConfig
	}
	// Automation clients send these first. Length decides paging of
	// interactive sessions; width is validated and otherwise has no effect.
	terminal := root.keyword("terminal")
	confirm := func(message func(int) string, n int) Result {
		if message == nil {
			return Result{}
		}
		return output(message(n))
	}
	terminal.keyword("length").number(0, p.terminalMax).run = func(s *Session, args []string) Result {
		s.length, _ = strconv.Atoi(args[0])
		return confirm(p.lengthSet, s.length)
	}
	terminal.keyword("width").number(0, p.terminalMax).run = func(_ *Session, args []string) Result {
		n, _ := strconv.Atoi(args[0])
		return confirm(p.widthSet, n)
	}

	show := root.keyword("show")
	show.keyword("tech-support").run = showTechSupport
	show.keyword("payload").number(1, MaxPayload).run = showPayload

	leave := func(*Session, []string) Result { return Result{Exit: true} }
	root.keyword("exit").run = leave
	root.keyword("logout").run = leave
	return root
}

// showTechSupport concatenates every transcript, section by section as the
// real command does, repeating the set until the output reaches
// TechSupportSize: a large, realistic output for transfer tests.
func showTechSupport(s *Session, _ []string) Result {
	var b strings.Builder
	b.Grow(TechSupportSize + 64*1024)
	for pass := 1; b.Len() < TechSupportSize && len(s.engine.transcripts) > 0; pass++ {
		for _, t := range s.engine.transcripts {
			fmt.Fprintf(&b, "\n------------------ %s (pass %d) ------------------\n\n", t.Command, pass)
			b.WriteString(s.render(t).Output)
		}
	}
	return output(b.String())
}

// payloadLine is the repeated content of "show payload".
const payloadLine = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_\n"

// showPayload prints exactly the requested number of bytes in 64-byte
// lines, for output-size sweeps.
func showPayload(_ *Session, args []string) Result {
	n, _ := strconv.Atoi(args[0])
	full := strings.Repeat(payloadLine, n/len(payloadLine))
	rest := n % len(payloadLine)
	if rest == 0 {
		return output(full)
	}
	return output(full + payloadLine[:rest-1] + "\n")
}
