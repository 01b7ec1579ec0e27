package engine

import (
	"strings"
	"unicode/utf8"
)

// globalKeywords are the first words accepted in global configuration mode.
// What follows a keyword is free-form: the emulator remembers configuration
// rather than modelling every feature, but rejects lines no IOS-XE device
// would take, with the same error messages.
var globalKeywords = []string{
	"aaa", "access-list", "alias", "archive", "banner", "boot", "cdp", "clock",
	"crypto", "enable", "errdisable", "ip", "ipv6", "license", "logging", "login",
	"mpls", "ntp", "platform", "service", "snmp-server", "spanning-tree", "username",
	"vlan",
}

// standaloneKeywords are complete commands on their own.
var standaloneKeywords = []string{"netconf-yang", "restconf"}

// subModes maps keywords that open a configuration sub-mode to the prompt
// tag IOS shows there ("interface Gi1" -> "lab-r1(config-if)#").
var subModes = map[string]string{
	"class-map":     "config-cmap",
	"control-plane": "config-cp",
	"interface":     "config-if",
	"line":          "config-line",
	"policy-map":    "config-pmap",
	"redundancy":    "config-red",
	"route-map":     "config-route-map",
	"router":        "config-router",
	"vrf":           "config-vrf",
}

// argumentless sub-mode keywords ("control-plane" rather than "interface X").
var argumentless = map[string]bool{"control-plane": true, "redundancy": true}

func configGrammar() *node {
	root := &node{}
	for _, kw := range globalKeywords {
		root.restKeyword(kw, recordGlobal(kw))
	}
	for _, kw := range standaloneKeywords {
		root.keyword(kw).run = func(s *Session, _ []string) Result {
			return s.apply("", kw)
		}
	}
	for kw, prompt := range subModes {
		root.restKeyword(kw, enterSubMode(kw, prompt))
	}
	root.restKeyword("no", func(s *Session, args []string) Result {
		if args[0] == "" {
			return incomplete()
		}
		return s.apply("", "no "+args[0])
	})
	root.restKeyword("hostname", setHostname)
	root.restKeyword("do", runExecFromConfig)
	root.keyword("end").run = func(s *Session, _ []string) Result {
		s.mode = modeExec
		return Result{}
	}
	root.keyword("exit").run = func(s *Session, _ []string) Result {
		s.mode = modeExec
		return Result{}
	}
	return root
}

// restKeyword adds a keyword whose remaining text is one free-form argument.
func (n *node) restKeyword(word string, run action) {
	k := n.keyword(word)
	k.takesRest = true
	k.run = run
}

func incomplete() Result {
	return Result{Output: "% Incomplete command.\n\n", Err: ErrIncomplete}
}

func recordGlobal(keyword string) action {
	return func(s *Session, args []string) Result {
		if args[0] == "" {
			return incomplete()
		}
		return s.apply("", keyword+" "+args[0])
	}
}

func enterSubMode(keyword, prompt string) action {
	return func(s *Session, args []string) Result {
		header := keyword
		if args[0] != "" {
			header += " " + args[0]
		} else if !argumentless[keyword] {
			return incomplete()
		}
		if r := s.apply("", header); !r.OK() {
			return r
		}
		s.mode, s.subPrompt, s.subHeader = modeSubConfig, s.engine.platform.subPrompt(prompt, header), header
		return Result{}
	}
}

// setHostname applies "hostname NAME"; like IOS it takes exactly one word.
func setHostname(s *Session, args []string) Result {
	words := tokenize(args[0])
	switch {
	case len(words) == 0:
		return incomplete()
	case len(words) > 1:
		typed := strings.TrimRight(s.line, " \t")
		column := utf8.RuneCountInString(typed) - utf8.RuneCountInString(args[0][words[1].offset:])
		return s.errorResult(s.line, &parseError{kind: ErrInvalidInput, column: column, word: words[1].text, index: 2})
	}
	return s.apply("", "hostname "+words[0].text)
}

// apply records a configuration line in the engine's store; a store that
// refuses it (or cannot be reached) gives a device-style error.
func (s *Session) apply(block, line string) Result {
	if err := s.config.Apply(block, line); err != nil {
		return Result{Output: "% " + err.Error() + "\n", Err: ErrConfig}
	}
	return Result{}
}

// runExecFromConfig implements "do <exec command>". The "do" prefix is
// blanked rather than cut so error carets still point into the typed line.
func runExecFromConfig(s *Session, args []string) Result {
	if args[0] == "" {
		return incomplete()
	}
	trimmed := strings.TrimRight(s.line, " \t")
	blanked := strings.Repeat(" ", len(trimmed)-len(args[0])) + args[0]
	return s.runExec(blanked)
}

// executeSubMode handles a line inside a sub-mode. Only the exact words
// end, exit and do are special: abbreviations would collide with the many
// sub-mode commands (e.g. "en" for "encapsulation"), so everything else is
// remembered under the block header.
func (s *Session) executeSubMode(line string) Result {
	tokens := tokenize(line)
	first := strings.ToLower(tokens[0].text)
	if first == "do" {
		return s.run(s.engine.configRoot, line)
	}
	if first != "end" && first != "exit" {
		return s.apply(s.subHeader, strings.TrimSpace(line))
	}
	if len(tokens) > 1 {
		column := utf8.RuneCountInString(line[:tokens[1].offset])
		return s.errorResult(line, &parseError{kind: ErrInvalidInput, column: column, word: tokens[1].text, index: 1})
	}
	if first == "end" {
		s.mode = modeExec
	} else {
		s.mode = modeConfig
	}
	s.subPrompt, s.subHeader = "", ""
	return Result{}
}
