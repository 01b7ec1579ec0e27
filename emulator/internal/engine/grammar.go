package engine

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// action runs a fully parsed command. args holds the values of argument
// tokens (numbers) or, for rest-of-line nodes, the raw remaining text.
type action func(s *Session, args []string) Result

// node is one word of the command grammar. The tree is built once per Engine
// and only read afterwards, so sessions share it without locking.
type node struct {
	word     string // keyword as written in help and running-config; "" for arguments
	numMin   int    // inclusive range for numeric arguments
	numMax   int
	isNumber bool
	// takesRest makes the node swallow the rest of the line as a single
	// argument (config commands are free-form after their keyword).
	takesRest bool
	children  []*node
	run       action // non-nil when a command may end at this node
}

func (n *node) keyword(word string) *node {
	for _, c := range n.children {
		if !c.isNumber && c.word == word {
			return c
		}
	}
	c := &node{word: word}
	n.children = append(n.children, c)
	return c
}

func (n *node) number(min, max int) *node {
	c := &node{isNumber: true, numMin: min, numMax: max}
	n.children = append(n.children, c)
	return c
}

// candidates returns the children a token can select: an exact keyword match
// wins outright (IOS accepts "ip" even though "ipv6" exists); otherwise every
// keyword the token abbreviates and every argument that accepts it.
func (n *node) candidates(token string) []*node {
	lower := strings.ToLower(token)
	var matches []*node
	for _, c := range n.children {
		if c.isNumber {
			if v, err := strconv.Atoi(token); err == nil && v >= c.numMin && v <= c.numMax {
				matches = append(matches, c)
			}
			continue
		}
		if lower == c.word {
			return []*node{c}
		}
		if strings.HasPrefix(c.word, lower) {
			matches = append(matches, c)
		}
	}
	return matches
}

// token is one whitespace-separated word of an input line with its byte
// offset, used to place the IOS caret under the offending word.
type token struct {
	text   string
	offset int
}

func tokenize(line string) []token {
	var tokens []token
	start := -1
	for i, r := range line {
		space := r == ' ' || r == '\t'
		switch {
		case space && start >= 0:
			tokens = append(tokens, token{text: line[start:i], offset: start})
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		tokens = append(tokens, token{text: line[start:], offset: start})
	}
	return tokens
}

// parsed is a successfully matched command ready to run.
type parsed struct {
	run  action
	args []string
}

// parseError describes why a line did not match; column is the display
// column (in runes) of the offending token for the caret line.
type parseError struct {
	kind   ErrorKind
	column int
	// word and index (0-based, as EOS counts) name the offending token.
	word  string
	index int
}

// parse walks the grammar word by word. It never panics on any input; that
// property is exercised by FuzzParse.
func (n *node) parse(line string) (parsed, *parseError) {
	tokens := tokenize(line)
	cur := n
	var args []string
	for i, tok := range tokens {
		matches := cur.candidates(tok.text)
		switch {
		case len(matches) == 0:
			return parsed{}, &parseError{kind: ErrInvalidInput, column: utf8.RuneCountInString(line[:tok.offset]),
				word: tok.text, index: i}
		case len(matches) > 1:
			return parsed{}, &parseError{kind: ErrAmbiguous}
		}
		cur = matches[0]
		if cur.takesRest {
			rest := ""
			if i+1 < len(tokens) {
				rest = strings.TrimRight(line[tokens[i+1].offset:], " \t")
			}
			return parsed{run: cur.run, args: append(args, rest)}, nil
		}
		if cur.isNumber {
			args = append(args, tok.text)
		}
	}
	if cur == n || cur.run == nil {
		return parsed{}, &parseError{kind: ErrIncomplete}
	}
	return parsed{run: cur.run, args: args}, nil
}
