// Package framing implements the two NETCONF-over-SSH message framings of
// RFC 6242: end-of-message (":base:1.0", messages end with "]]>]]>") and
// chunked (":base:1.1", "\n#<size>\n<data>" chunks ended by "\n##\n").
// It knows nothing about XML; the session layer decides when to switch.
package framing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// EndOfMessage terminates every message in :base:1.0 framing.
const EndOfMessage = "]]>]]>"

// maxChunkSize is the largest chunk-size RFC 6242 allows (2^32-1).
const maxChunkSize = 4294967295

// ErrTooLarge is returned when a message exceeds the decoder's limit.
var ErrTooLarge = errors.New("framing: message exceeds the size limit")

// Error is a framing violation: the stream cannot be resynchronised, so the
// session must be closed.
type Error struct{ Reason string }

func (e *Error) Error() string { return "framing: " + e.Reason }

// Decoder reads whole messages from a stream. It starts in end-of-message
// framing (every session starts with <hello> in that framing).
type Decoder struct {
	r       *bufio.Reader
	chunked bool
	max     int
}

// NewDecoder reads from r; a message larger than maxMessage bytes is an
// error (ErrTooLarge), so a peer cannot make the device buffer without bound.
func NewDecoder(r io.Reader, maxMessage int) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64*1024), max: maxMessage}
}

// SetChunked switches to chunked framing (after a :base:1.1 hello exchange).
func (d *Decoder) SetChunked() { d.chunked = true }

// Chunked reports the current framing.
func (d *Decoder) Chunked() bool { return d.chunked }

// ReadMessage returns the next message. io.EOF means the peer closed the
// stream cleanly between messages; io.ErrUnexpectedEOF that it closed
// inside one.
func (d *Decoder) ReadMessage() ([]byte, error) {
	if d.chunked {
		return d.readChunked()
	}
	return d.readEOM()
}

// readEOM reads up to "]]>]]>". Whitespace between messages (clients often
// send a newline after the delimiter) is skipped; a stream that ends with
// only whitespace is a clean EOF.
func (d *Decoder) readEOM() ([]byte, error) {
	var msg []byte
	for {
		b, err := d.r.ReadByte()
		if err == io.EOF {
			if len(bytes.TrimSpace(msg)) == 0 {
				return nil, io.EOF
			}
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		msg = append(msg, b)
		if b == '>' && bytes.HasSuffix(msg, []byte(EndOfMessage)) {
			body := bytes.TrimSpace(msg[:len(msg)-len(EndOfMessage)])
			if len(body) == 0 {
				msg = msg[:0]
				continue
			}
			return body, nil
		}
		if len(msg) > d.max+len(EndOfMessage) {
			return nil, ErrTooLarge
		}
	}
}

// readChunked reads chunks up to the end-of-chunks marker. Whitespace
// before the first chunk header is tolerated (some clients send a newline
// after switching framing); anything else outside a chunk is an error.
func (d *Decoder) readChunked() ([]byte, error) {
	var msg []byte
	first := true
	for {
		if first {
			if err := d.skipBlankUntilLF(); err != nil {
				return nil, err
			}
		} else if err := d.expect('\n'); err != nil {
			return nil, err
		}
		if err := d.expect('#'); err != nil {
			return nil, err
		}
		b, err := d.next()
		if err != nil {
			return nil, err
		}
		if b == '#' {
			if err := d.expect('\n'); err != nil {
				return nil, err
			}
			if first {
				return nil, &Error{"end-of-chunks before any chunk"}
			}
			return msg, nil
		}
		size, err := d.chunkSize(b)
		if err != nil {
			return nil, err
		}
		if size > uint64(d.max-len(msg)) {
			return nil, ErrTooLarge
		}
		start := len(msg)
		msg = append(msg, make([]byte, size)...)
		if _, err := io.ReadFull(d.r, msg[start:]); err != nil {
			return nil, unexpected(err)
		}
		first = false
	}
}

// skipBlankUntilLF consumes optional whitespace and the "\n" that starts
// the first chunk header. A clean EOF here is the end of the session.
func (d *Decoder) skipBlankUntilLF() error {
	for {
		b, err := d.r.ReadByte()
		if err != nil {
			return err
		}
		switch b {
		case '\n':
			// A "\n" followed by "#" starts the header; more blank lines
			// before it are tolerated.
			next, err := d.r.Peek(1)
			if err != nil {
				return unexpected(err)
			}
			if next[0] == '#' {
				return nil
			}
		case ' ', '\t', '\r':
		default:
			return &Error{fmt.Sprintf("unexpected byte %q outside a chunk", b)}
		}
	}
}

// chunkSize parses "<digits>\n" whose first byte was already read: 1 to
// 4294967295, no leading zero.
func (d *Decoder) chunkSize(first byte) (uint64, error) {
	if first < '1' || first > '9' {
		return 0, &Error{fmt.Sprintf("bad chunk size start %q", first)}
	}
	size := uint64(first - '0')
	for digits := 1; ; digits++ {
		b, err := d.next()
		if err != nil {
			return 0, err
		}
		if b == '\n' {
			return size, nil
		}
		if b < '0' || b > '9' || digits >= 10 {
			return 0, &Error{"bad chunk size"}
		}
		size = size*10 + uint64(b-'0')
		if size > maxChunkSize {
			return 0, &Error{"chunk size out of range"}
		}
	}
}

func (d *Decoder) next() (byte, error) {
	b, err := d.r.ReadByte()
	return b, unexpected(err)
}

func (d *Decoder) expect(want byte) error {
	b, err := d.next()
	if err != nil {
		return err
	}
	if b != want {
		return &Error{fmt.Sprintf("expected %q, got %q", want, b)}
	}
	return nil
}

// unexpected turns an EOF inside a message into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Encoder writes messages in the current framing.
type Encoder struct {
	w       io.Writer
	chunked bool
	// chunk is the largest chunk written; longer messages are split.
	chunk int
}

// DefaultChunkSize splits long chunked messages the way many devices do.
const DefaultChunkSize = 64 * 1024

// NewEncoder writes to w in end-of-message framing.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w, chunk: DefaultChunkSize} }

// SetChunked switches to chunked framing.
func (e *Encoder) SetChunked() { e.chunked = true }

// WriteMessage frames msg and writes it with as few writes as practical.
func (e *Encoder) WriteMessage(msg []byte) error {
	if !e.chunked {
		buf := make([]byte, 0, len(msg)+len(EndOfMessage))
		buf = append(append(buf, msg...), EndOfMessage...)
		_, err := e.w.Write(buf)
		return err
	}
	buf := make([]byte, 0, len(msg)+16*(len(msg)/e.chunk+2))
	for len(msg) > 0 {
		n := min(len(msg), e.chunk)
		buf = fmt.Appendf(buf, "\n#%d\n", n)
		buf = append(buf, msg[:n]...)
		msg = msg[n:]
	}
	buf = append(buf, "\n##\n"...)
	_, err := e.w.Write(buf)
	return err
}
