package engine

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Output modifiers: "show running-config | include ^hostname". The
// command before the first "|" runs as usual and its output goes through
// the filters; paging (a front-end matter) sees only what the filters let
// through.

// modifier is one filter after a "|".
type modifier struct {
	name string
	// re is nil for "count" without an expression (every line counts).
	re *regexp.Regexp
}

// findPipe returns the byte offset of the first "|" that starts a word of
// line, or -1. A "|" inside a word ("a|b") belongs to that word.
func findPipe(line string) int {
	for _, tok := range tokenize(line) {
		if strings.HasPrefix(tok.text, "|") {
			return tok.offset
		}
	}
	return -1
}

// parseModifiers reads the filters of line from the "|" at offset pipe
// on. Every "|" that starts a word opens another filter where the platform
// chains them (EOS); on IOS the expression is the rest of the line, later
// "|" included (IOS then reads them as regular-expression alternation).
func (s *Session) parseModifiers(line string, pipe int) ([]modifier, *parseError) {
	p := s.engine.platform
	var mods []modifier
	for pipe >= 0 {
		start := pipe + 1
		words := tokenize(line[start:])
		if len(words) == 0 {
			return nil, &parseError{kind: ErrIncomplete}
		}
		word := words[0]
		wordAt := start + word.offset
		name, perr := p.modifierNamed(line, word.text, wordAt)
		if perr != nil {
			return nil, perr
		}
		argAt := wordAt + len(word.text)
		for argAt < len(line) && (line[argAt] == ' ' || line[argAt] == '\t') {
			argAt++
		}
		arg, next := line[argAt:], -1
		if p.chainedPipes {
			if k := findPipe(arg); k >= 0 {
				next = argAt + k
				arg = line[argAt:next]
			}
			arg = strings.TrimRight(arg, " \t")
		}
		if arg == "" && name != "count" {
			return nil, &parseError{kind: ErrIncomplete}
		}
		m := modifier{name: name}
		if arg != "" {
			re, err := regexp.Compile(p.regex(arg))
			if err != nil {
				return nil, invalidAt(line, arg, argAt)
			}
			m.re = re
		}
		mods = append(mods, m)
		pipe = next
	}
	return mods, nil
}

// modifierNamed resolves a possibly abbreviated modifier name.
func (p *platform) modifierNamed(line, word string, at int) (string, *parseError) {
	lower := strings.ToLower(word)
	var matches []string
	for _, name := range p.modifiers {
		if name == lower {
			return name, nil
		}
		if strings.HasPrefix(name, lower) {
			matches = append(matches, name)
		}
	}
	switch len(matches) {
	case 0:
		return "", invalidAt(line, word, at)
	case 1:
		return matches[0], nil
	}
	return "", &parseError{kind: ErrAmbiguous}
}

// invalidAt is an invalid-input error for the word at byte offset at.
func invalidAt(line, word string, at int) *parseError {
	return &parseError{kind: ErrInvalidInput, column: utf8.RuneCountInString(line[:at]), word: word,
		index: len(tokenize(line[:at]))}
}

// filter applies the modifiers in order to a command's output.
func filter(output string, mods []modifier) string {
	for _, m := range mods {
		lines := strings.SplitAfter(output, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		output = strings.Join(m.apply(lines), "")
	}
	return output
}

func (m modifier) matches(line string) bool {
	return m.re == nil || m.re.MatchString(strings.TrimSuffix(line, "\n"))
}

func (m modifier) apply(lines []string) []string {
	var out []string
	switch m.name {
	case "include", "exclude":
		for _, l := range lines {
			if m.matches(l) == (m.name == "include") {
				out = append(out, l)
			}
		}
	case "begin":
		for i, l := range lines {
			if m.matches(l) {
				return lines[i:]
			}
		}
	case "section":
		out = m.sections(lines)
	case "count":
		n := 0
		for _, l := range lines {
			if m.matches(l) {
				n++
			}
		}
		out = []string{fmt.Sprintf("Number of lines which match regexp = %d\n", n)}
	}
	return out
}

// sections keeps every section in which a line matches: a section is a
// line at the left margin and the indented lines that follow it, as
// running-config blocks are.
func (m modifier) sections(lines []string) []string {
	var out []string
	for start := 0; start < len(lines); {
		end := start + 1
		for end < len(lines) && (strings.HasPrefix(lines[end], " ") || strings.HasPrefix(lines[end], "\t")) {
			end++
		}
		for _, l := range lines[start:end] {
			if m.matches(l) {
				out = append(out, lines[start:end]...)
				break
			}
		}
		start = end
	}
	return out
}

// iosRegex translates the one IOS pattern character RE2 lacks: "_"
// matches a delimiter (comma, brace, parenthesis, space) or either end of
// the line. Inside a bracket expression or escaped it is a plain "_".
func iosRegex(expr string) string {
	var b strings.Builder
	inClass, escaped := false, false
	for _, r := range expr {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case inClass:
			inClass = r != ']'
		case r == '[':
			inClass = true
		case r == '_':
			b.WriteString(`(?:^|$|[,{}() ])`)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
