package engine

// execGrammar holds the privileged exec built-ins; transcripts are added to
// the same tree by New.
func execGrammar() *node {
	root := &node{}
	root.keyword("configure").keyword("terminal").run = func(s *Session, _ []string) Result {
		s.mode = modeConfig
		return output("Enter configuration commands, one per line.  End with CNTL/Z.\n")
	}
	// Automation clients send these first; output is never paged, so the
	// values are validated (as IOS does) and otherwise have no effect.
	terminal := root.keyword("terminal")
	accept := func(*Session, []string) Result { return Result{} }
	terminal.keyword("length").number(0, 512).run = accept
	terminal.keyword("width").number(0, 512).run = accept

	leave := func(*Session, []string) Result { return Result{Exit: true} }
	root.keyword("exit").run = leave
	root.keyword("logout").run = leave
	return root
}
