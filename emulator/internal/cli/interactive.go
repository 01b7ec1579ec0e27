package cli

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"

	"transportlab/emulator/internal/engine"
)

// Control characters the line editor understands, as IOS does.
const (
	keyCtrlC     = 0x03 // abandon the line
	keyBackspace = 0x08
	keyCtrlU     = 0x15 // erase the line
	keyCtrlZ     = 0x1a // leave configuration mode
	keyEscape    = 0x1b // starts a cursor-key sequence, ignored
	keyDelete    = 0x7f // what most terminals send for backspace
)

// maxLineBytes bounds the line buffer; further input is dropped, like the
// fixed-size line buffer of a real device.
const maxLineBytes = 4096

// RunInteractive serves a terminal session: it prints the prompt, echoes
// typed characters, runs each entered line and answers with "\r\n" line
// endings (the terminal is in raw mode, so nothing translates "\n"), paged
// at --More-- by the session's terminal length. It returns nil when the user
// exits or the input ends.
func RunInteractive(session *engine.Session, r io.Reader, w io.Writer, recorder Recorder) error {
	t := &terminal{in: bufio.NewReader(r), out: bufio.NewWriter(w)}
	defer t.out.Flush()
	if err := t.write(session.Prompt()); err != nil {
		return err
	}
	for {
		line, key, err := t.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var reply string
		switch key {
		case keyCtrlC:
			reply = "\r\n"
		case keyCtrlZ:
			reply = "^Z\r\n"
			if session.InConfigMode() {
				session.Execute("end")
			}
		default:
			result := session.Execute(line)
			if strings.TrimSpace(line) != "" {
				recorder.CommandServed(result)
			}
			if result.Exit {
				return t.write("\r\n")
			}
			if err := t.write("\r\n"); err != nil {
				return err
			}
			if err := t.page(result.Output, session.TerminalLength()); err != nil {
				return err
			}
		}
		if err := t.write(reply + session.Prompt()); err != nil {
			return err
		}
	}
}

// terminal is a minimal line editor over raw terminal input. Output is
// buffered and flushed whenever no more input is waiting, so echo of pasted
// text and command output leave in as few writes as possible.
type terminal struct {
	in  *bufio.Reader
	out *bufio.Writer
	// afterCR swallows the "\n" of a "\r\n" pair so it is one Enter.
	afterCR bool
}

func (t *terminal) write(s string) error {
	_, err := t.out.WriteString(s)
	return err
}

// readByte flushes pending output before it would block for input.
func (t *terminal) readByte() (byte, error) {
	if t.in.Buffered() == 0 {
		if err := t.out.Flush(); err != nil {
			return 0, err
		}
	}
	return t.in.ReadByte()
}

// readLine collects one line with echo. key is 0 for Enter, or keyCtrlC /
// keyCtrlZ when the line was abandoned with that key.
func (t *terminal) readLine() (string, byte, error) {
	var line []byte
	for {
		b, err := t.readByte()
		if err != nil {
			return "", 0, err
		}
		wasAfterCR := t.afterCR
		t.afterCR = false
		switch {
		case b == '\r':
			t.afterCR = true
			return string(line), 0, nil
		case b == '\n':
			if wasAfterCR {
				continue
			}
			return string(line), 0, nil
		case b == keyCtrlC || b == keyCtrlZ:
			return "", b, nil
		case b == keyBackspace || b == keyDelete:
			if len(line) > 0 {
				_, size := utf8.DecodeLastRune(line)
				line = line[:len(line)-size]
				err = t.write("\b \b")
			}
		case b == keyCtrlU:
			err = t.write(strings.Repeat("\b \b", utf8.RuneCount(line)))
			line = line[:0]
		case b == keyEscape:
			err = t.skipEscapeSequence()
		case b < 0x20:
			// Other control characters (tab, Ctrl-D, ...) are ignored.
		case len(line) < maxLineBytes:
			line = append(line, b)
			err = t.out.WriteByte(b)
		}
		if err != nil {
			return "", 0, err
		}
	}
}

// skipEscapeSequence consumes "ESC [ ... final" or "ESC O x" (cursor keys
// and the like), which the editor does not support.
func (t *terminal) skipEscapeSequence() error {
	b, err := t.readByte()
	if err != nil || (b != '[' && b != 'O') {
		return err
	}
	for {
		b, err = t.readByte()
		if err != nil || (b >= 0x40 && b <= 0x7e) {
			return err
		}
	}
}

// morePrompt is shown when a page is full; moreErase removes it again.
const (
	morePrompt = " --More-- "
	moreErase  = "\b\b\b\b\b\b\b\b\b\b          \b\b\b\b\b\b\b\b\b\b"
)

// page writes command output, stopping every length-1 lines at --More--
// when length is not 0: space shows the next page, Enter one more line,
// any other key discards the rest (as IOS and EOS do).
func (t *terminal) page(output string, length int) error {
	lines := strings.SplitAfter(output, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if length == 0 || len(lines) < length {
		return t.write(toCRLF(output))
	}
	budget := length - 1
	for _, line := range lines {
		if budget == 0 {
			if err := t.write(morePrompt); err != nil {
				return err
			}
			key, err := t.readKey()
			if err != nil {
				return err
			}
			if err := t.write(moreErase); err != nil {
				return err
			}
			switch key {
			case ' ':
				budget = length - 1
			case '\r', '\n':
				budget = 1
			default:
				return nil
			}
		}
		if err := t.write(toCRLF(line)); err != nil {
			return err
		}
		budget--
	}
	return nil
}

// readKey reads one key press at a --More-- prompt; the "\n" of a "\r\n"
// pair belongs to the previous Enter.
func (t *terminal) readKey() (byte, error) {
	for {
		b, err := t.readByte()
		if err != nil {
			return 0, err
		}
		wasAfterCR := t.afterCR
		t.afterCR = b == '\r'
		if b == '\n' && wasAfterCR {
			continue
		}
		return b, nil
	}
}

// toCRLF converts engine output ("\n" lines) to terminal line endings.
func toCRLF(s string) string {
	return strings.ReplaceAll(s, "\n", "\r\n")
}
