package cli

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"transportlab/emulator/internal/engine"
)

type countingRecorder struct{ ok, failed int }

func (c *countingRecorder) CommandServed(r engine.Result) {
	if r.OK() {
		c.ok++
	} else {
		c.failed++
	}
}

func newSession(t *testing.T, echoed bool) *engine.Session {
	t.Helper()
	version, err := engine.ParseTranscript("show version", "Cisco IOS XE Software\n{{.Hostname}} uptime is {{.Uptime}}\n")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e, err := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: start,
		Now: func() time.Time { return start.Add(5 * time.Minute) }}, []engine.Transcript{version})
	if err != nil {
		t.Fatal(err)
	}
	return e.NewSession(echoed)
}

func TestExecRunsEveryLine(t *testing.T) {
	var out strings.Builder
	rec := &countingRecorder{}
	ok, err := RunExec(newSession(t, false), "show version\n\nterminal length 0\n", &out, rec)
	want := "Cisco IOS XE Software\nlab-r1 uptime is 5 minutes\n"
	if err != nil || !ok || out.String() != want || rec.ok != 2 {
		t.Fatalf("ok=%v err=%v out=%q rec=%+v", ok, err, out.String(), rec)
	}
}

func TestExecReportsFailure(t *testing.T) {
	var out strings.Builder
	rec := &countingRecorder{}
	ok, _ := RunExec(newSession(t, false), "show bogus\nshow version", &out, rec)
	if ok || !strings.HasPrefix(out.String(), "show bogus\n     ^\n% Invalid input detected at '^' marker.\n") ||
		!strings.HasSuffix(out.String(), "uptime is 5 minutes\n") || rec.failed != 1 || rec.ok != 1 {
		t.Fatalf("ok=%v out=%q rec=%+v", ok, out.String(), rec)
	}
}

func TestInteractiveTranscript(t *testing.T) {
	input := "terminal length 0\r\nsh ver\rshow bogus\r\x15\x1b[Aconf t\rhostname core\r\x1aexit\r"
	var out strings.Builder
	rec := &countingRecorder{}
	if err := RunInteractive(newSession(t, true), strings.NewReader(input), &out, rec); err != nil {
		t.Fatal(err)
	}
	want := "lab-r1#terminal length 0\r\n" +
		"lab-r1#sh ver\r\nCisco IOS XE Software\r\nlab-r1 uptime is 5 minutes\r\n" +
		"lab-r1#show bogus\r\n" + strings.Repeat(" ", len("lab-r1#show ")) + "^\r\n% Invalid input detected at '^' marker.\r\n\r\n" +
		"lab-r1#" + // Ctrl-U on an empty line and a cursor key change nothing
		"conf t\r\nEnter configuration commands, one per line.  End with CNTL/Z.\r\n" +
		"lab-r1(config)#hostname core\r\n" +
		"core(config)#^Z\r\n" +
		"core#exit\r\n"
	if out.String() != want {
		t.Fatalf("transcript mismatch\n got: %q\nwant: %q", out.String(), want)
	}
	if rec.ok != 5 || rec.failed != 1 {
		t.Fatalf("recorded %+v", rec)
	}
}

func TestInteractiveLineEditing(t *testing.T) {
	var out strings.Builder
	// "shoz" + backspace + "w ver", then Ctrl-C abandons "junk", then EOF.
	input := "shoz\x7fw ver\rjunk\x03"
	if err := RunInteractive(newSession(t, true), strings.NewReader(input), &out, &countingRecorder{}); err != nil {
		t.Fatal(err)
	}
	want := "lab-r1#shoz\b \bw ver\r\nCisco IOS XE Software\r\nlab-r1 uptime is 5 minutes\r\nlab-r1#junk\r\nlab-r1#"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
}

// TestInteractiveOverPipes drives the session like a client would: wait for
// the prompt, type, wait for the answer and the next prompt.
func TestInteractiveOverPipes(t *testing.T) {
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- RunInteractive(newSession(t, true), serverIn, serverOut, &countingRecorder{})
		serverOut.Close()
	}()
	screen := bufio.NewReader(clientIn)
	expect := func(want string) {
		t.Helper()
		got := make([]byte, len(want))
		if _, err := io.ReadFull(screen, got); err != nil || string(got) != want {
			t.Fatalf("read %q (%v), want %q", got, err, want)
		}
	}
	expect("lab-r1#")
	io.WriteString(clientOut, "show version\r")
	expect("show version\r\nCisco IOS XE Software\r\nlab-r1 uptime is 5 minutes\r\nlab-r1#")
	io.WriteString(clientOut, "exit\r")
	expect("exit\r\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(screen); len(rest) != 0 {
		t.Fatalf("output after exit: %q", rest)
	}
}

func TestInteractivePaging(t *testing.T) {
	e, err := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// 640 bytes = 10 lines. Length 4: 3 lines, space (3 more), Enter (1
	// more), then "q" discards the rest. Then a page that needs no prompt.
	input := "terminal length 4\rshow payload 640\r \r\nqshow payload 128\r"
	if err := RunInteractive(e.NewSession(true), strings.NewReader(input), &out, &countingRecorder{}); err != nil {
		t.Fatal(err)
	}
	line := "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_\r\n"
	more := morePrompt + moreErase
	want := "lab-r1#terminal length 4\r\nlab-r1#show payload 640\r\n" +
		strings.Repeat(line, 3) + more + strings.Repeat(line, 3) + more + line + more +
		"lab-r1#show payload 128\r\n" + strings.Repeat(line, 2) + "lab-r1#"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

func TestExecSessionsNeverPage(t *testing.T) {
	e, _ := engine.New(engine.Options{Hostname: "lab-r1", StartedAt: time.Now()}, nil)
	var out strings.Builder
	if ok, err := RunExec(e.NewSession(false), "show payload 6400", &out, &countingRecorder{}); !ok || err != nil || out.Len() != 6400 {
		t.Fatalf("ok=%v err=%v len=%d", ok, err, out.Len())
	}
}
