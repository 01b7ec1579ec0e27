package framing

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestEOMMessages(t *testing.T) {
	in := "<hello/>]]>]]>\n  <rpc a='1'/>]]>]]>\n]]>]]><rpc/>]]>]]>\n"
	d := NewDecoder(strings.NewReader(in), 1024)
	for _, want := range []string{"<hello/>", "<rpc a='1'/>", "<rpc/>"} {
		got, err := d.ReadMessage()
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := d.ReadMessage(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestEOMTruncated(t *testing.T) {
	d := NewDecoder(strings.NewReader("<rpc>"), 1024)
	if _, err := d.ReadMessage(); err != io.ErrUnexpectedEOF {
		t.Fatalf("want ErrUnexpectedEOF, got %v", err)
	}
}

func TestChunkedMessages(t *testing.T) {
	in := "\n#4\n<rpc\n#3\n/>a\n##\n\n#2\nhi\n##\n"
	d := NewDecoder(strings.NewReader(in), 1024)
	d.SetChunked()
	for _, want := range []string{"<rpc/>a", "hi"} {
		got, err := d.ReadMessage()
		if err != nil || string(got) != want {
			t.Fatalf("got %q, %v; want %q", got, err, want)
		}
	}
	if _, err := d.ReadMessage(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestChunkedErrors(t *testing.T) {
	for _, in := range []string{
		"\n#0\n\n##\n",      // zero size
		"\n#01\nx\n##\n",    // leading zero
		"\n#4294967296\nx",  // out of range
		"\n##\n",            // no chunk
		"junk\n#1\nx\n##\n", // bytes outside a chunk
		"\n#2\nab\n#x",      // bad header
		"\n#12345678901\n",  // too many digits
	} {
		d := NewDecoder(strings.NewReader(in), 1<<20)
		d.SetChunked()
		_, err := d.ReadMessage()
		var fe *Error
		if !errors.As(err, &fe) && err != io.ErrUnexpectedEOF && err != ErrTooLarge {
			t.Errorf("%q: want framing error, got %v", in, err)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	d := NewDecoder(strings.NewReader(strings.Repeat("x", 100)+EndOfMessage), 10)
	if _, err := d.ReadMessage(); err != ErrTooLarge {
		t.Fatalf("EOM: want ErrTooLarge, got %v", err)
	}
	d = NewDecoder(strings.NewReader("\n#100\n"+strings.Repeat("x", 100)+"\n##\n"), 10)
	d.SetChunked()
	if _, err := d.ReadMessage(); err != ErrTooLarge {
		t.Fatalf("chunked: want ErrTooLarge, got %v", err)
	}
}

func TestEncoderRoundTrip(t *testing.T) {
	msgs := [][]byte{[]byte("<a/>"), bytes.Repeat([]byte("y"), 3*DefaultChunkSize+7)}
	for _, chunked := range []bool{false, true} {
		var buf bytes.Buffer
		e := NewEncoder(&buf)
		d := NewDecoder(&buf, 1<<20)
		if chunked {
			e.SetChunked()
			d.SetChunked()
		}
		for _, m := range msgs {
			if err := e.WriteMessage(m); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range msgs {
			got, err := d.ReadMessage()
			if err != nil || !bytes.Equal(got, m) {
				t.Fatalf("chunked=%v: round trip failed: %v", chunked, err)
			}
		}
	}
}

func TestEncoderChunkedFormat(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	e.SetChunked()
	e.WriteMessage([]byte("<ok/>"))
	if got := buf.String(); got != "\n#5\n<ok/>\n##\n" {
		t.Fatalf("got %q", got)
	}
}

// FuzzDecoder feeds arbitrary streams to both framings: the decoder must
// never panic, never return more than the limit, and whatever it returns
// must survive an encode/decode round trip.
func FuzzDecoder(f *testing.F) {
	for _, seed := range []string{"<hello/>]]>]]>", "\n#3\nabc\n##\n", "\n#1\n", "]]>]]]>]]>", "\n#99999999999\n",
		"\n\n#2\nab\n#1\nc\n##\n", "  \r\n#1\nx\n##\n"} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, chunked bool) {
		const limit = 4096
		d := NewDecoder(bytes.NewReader(in), limit)
		if chunked {
			d.SetChunked()
		}
		for range 64 {
			msg, err := d.ReadMessage()
			if err != nil {
				return
			}
			if len(msg) > limit {
				t.Fatalf("message of %d bytes exceeds limit", len(msg))
			}
			if chunked && len(msg) > 0 {
				var buf bytes.Buffer
				e := NewEncoder(&buf)
				e.SetChunked()
				e.WriteMessage(msg)
				d2 := NewDecoder(&buf, limit)
				d2.SetChunked()
				if back, err := d2.ReadMessage(); err != nil || !bytes.Equal(back, msg) {
					t.Fatalf("round trip of %q failed: %v", msg, err)
				}
			}
		}
	})
}
