package program

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"transportlab/goclient/internal/buildinfo"
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// kept opened one connection before its iterations and records whether it was closed.
type kept struct{ closed bool }

func (k *kept) Iterate(commands []string) loop.Result {
	return loop.Result{Outputs: commands, Statuses: []int{200}}
}

func (k *kept) Opened() []report.Connection {
	return []report.Connection{{TLSVersion: 0x0304, ALPN: "h3"}}
}

func (k *kept) Close() error {
	k.closed = true
	return nil
}

func testProgram(k *kept, openErr error) Program {
	return Program{
		Name:    "goclient-test",
		Library: buildinfo.Library{Name: "quic-go", Module: "github.com/quic-go/quic-go"},
		Modes: map[string]Opener{
			"h3/keep-alive": func(job.Job, job.Credentials) (loop.Iterator, error) { return k, openErr },
		},
	}
}

const jobLine = `{"host":"device","port":443,"username_env":"GOCLIENT_TEST_U","password_env":"GOCLIENT_TEST_P","paced":true,"timeout_s":5}`

func lines(t *testing.T, out *bytes.Buffer) []report.Line {
	t.Helper()
	var got []report.Line
	scanner := bufio.NewScanner(out)
	for scanner.Scan() {
		var l report.Line
		if err := json.Unmarshal(scanner.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	return got
}

func TestAModeReportsReadyIterationsAndDone(t *testing.T) {
	t.Setenv("GOCLIENT_TEST_U", "labops")
	t.Setenv("GOCLIENT_TEST_P", "secret")
	k := &kept{}
	var out, errOut bytes.Buffer
	stdin := strings.NewReader(jobLine + "\n" + `{"commands":["show clock"]}` + "\n")
	if status := testProgram(k, nil).Main([]string{"h3/keep-alive"}, stdin, &out, &errOut); status != 0 {
		t.Fatalf("status %d: %s", status, errOut.String())
	}
	got := lines(t, &out)
	if len(got) != 3 {
		t.Fatalf("lines %+v", got)
	}
	ready := got[0]
	if ready.Event != report.EventReady || ready.Client != "quic-go" || !strings.HasPrefix(ready.Version, "quic-go ") {
		t.Fatalf("ready %+v", ready)
	}
	if len(ready.Connections) != 1 || ready.Connections[0].ALPN != "h3" {
		t.Fatalf("ready without the kept connection: %+v", ready.Connections)
	}
	if got[1].Event != report.EventIteration || got[1].Statuses[0] != 200 || got[2].Event != report.EventDone {
		t.Fatalf("lines %+v", got[1:])
	}
	if !k.closed {
		t.Fatal("the kept connection was not closed")
	}
}

func TestAFailedOpenIsAnErrorLine(t *testing.T) {
	t.Setenv("GOCLIENT_TEST_U", "labops")
	t.Setenv("GOCLIENT_TEST_P", "secret")
	var out bytes.Buffer
	status := testProgram(&kept{}, errors.New("dial: timeout")).Main(
		[]string{"h3/keep-alive"}, strings.NewReader(jobLine+"\n"), &out, &bytes.Buffer{})
	got := lines(t, &out)
	if status != 1 || len(got) != 1 || got[0].Event != report.EventError || got[0].Error != "session: dial: timeout" {
		t.Fatalf("status %d, lines %+v", status, got)
	}
}

func TestVersionModesAndUsage(t *testing.T) {
	p := testProgram(&kept{}, nil)
	var out, errOut bytes.Buffer
	if status := p.Main([]string{"version"}, nil, &out, &errOut); status != 0 || !strings.HasPrefix(out.String(), "quic-go ") {
		t.Fatalf("version: %d %q", status, out.String())
	}
	out.Reset()
	if status := p.Main([]string{"modes"}, nil, &out, &errOut); status != 0 || out.String() != "h3/keep-alive\n" {
		t.Fatalf("modes: %d %q", status, out.String())
	}
	if status := p.Main([]string{"h3/0rtt"}, nil, &out, &errOut); status != 2 || !strings.Contains(errOut.String(), "unknown mode") {
		t.Fatalf("unknown mode: %d %q", status, errOut.String())
	}
	if status := p.Main(nil, nil, &out, &errOut); status != 2 {
		t.Fatalf("no arguments: %d", status)
	}
}
