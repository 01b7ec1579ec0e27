package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/report"
)

// fake records the commands of each iteration and fails the second one.
type fake struct{ got [][]string }

func (f *fake) Iterate(commands []string) Result {
	f.got = append(f.got, commands)
	if len(f.got) == 2 {
		return Result{Outputs: []string{"partial"}, Err: errors.New("boom")}
	}
	return Result{Outputs: []string{"abc", "de"}, Phases: map[string]float64{"commands": 1.5}}
}

// ticking is a clock advancing 10 ms per reading from a fixed instant.
func ticking() Clock {
	t := time.Unix(1_800_000_000, 0)
	return func() time.Time {
		t = t.Add(10 * time.Millisecond)
		return t
	}
}

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

func TestPacedRunsOneIterationPerStep(t *testing.T) {
	var out bytes.Buffer
	f := &fake{}
	steps := `{"warmup":true,"commands":["a"]}` + "\n" + `{"commands":["b","c"]}` + "\n" + `{"commands":["d"]}` + "\n"
	err := Run(f, job.Job{Paced: true}, strings.NewReader(steps), report.NewWriter(&out), ticking())
	if err != nil {
		t.Fatal(err)
	}
	if len(f.got) != 3 || f.got[1][1] != "c" {
		t.Fatalf("iterations ran with %v", f.got)
	}
	got := lines(t, &out)
	if len(got) != 3 {
		t.Fatalf("%d lines", len(got))
	}
	first := got[0]
	if first.Event != report.EventIteration || first.Index != 1 || !first.Warmup || !first.OK {
		t.Fatalf("first line %+v", first)
	}
	// Four readings: the duration's first, the span's start, its end, the duration's last.
	if first.StartNs != time.Unix(1_800_000_000, 0).Add(20*time.Millisecond).UnixNano() ||
		first.EndNs-first.StartNs != int64(10*time.Millisecond) || first.WallNs != int64(30*time.Millisecond) {
		t.Fatalf("span %d..%d wall %d", first.StartNs, first.EndNs, first.WallNs)
	}
	if first.Bytes != 5 || first.Phases["commands"] != 1.5 {
		t.Fatalf("bytes %d phases %v", first.Bytes, first.Phases)
	}
	second := got[1]
	if second.OK || second.Error != "boom" || second.Warmup || second.Index != 2 {
		t.Fatalf("failed iteration reported as %+v", second)
	}
}

func TestPacedRefusesAStepWithoutCommands(t *testing.T) {
	var out bytes.Buffer
	err := Run(&fake{}, job.Job{Paced: true}, strings.NewReader("run\n"), report.NewWriter(&out), ticking())
	if err == nil {
		t.Fatal("a line that is not a step was accepted")
	}
	if _, err := ParseStep([]byte(`{"commands":[]}`)); err == nil {
		t.Fatal("a step without commands was accepted")
	}
}

func TestFreeRunsWarmupThenIterations(t *testing.T) {
	var out bytes.Buffer
	f := &fake{}
	j := job.Job{Warmup: 1, Iterations: 2, Commands: []string{"show version"}}
	if err := Run(f, j, strings.NewReader(""), report.NewWriter(&out), ticking()); err != nil {
		t.Fatal(err)
	}
	got := lines(t, &out)
	if len(got) != 3 || !got[0].Warmup || got[1].Warmup || got[2].Index != 3 {
		t.Fatalf("lines %+v", got)
	}
	if f.got[0][0] != "show version" {
		t.Fatalf("commands %v", f.got)
	}
}

// recovering counts two lost packets during each iteration and one between iterations
// (after the counts taken at an iteration's end, before those taken at the next one's start).
type recovering struct {
	fake
	pending report.Recovery
	takes   int
}

func (r *recovering) Iterate(commands []string) Result {
	r.pending.Lost += 2
	return r.fake.Iterate(commands)
}

func (r *recovering) TakeRecovery() report.Recovery {
	taken := r.pending
	r.takes++
	r.pending = report.Recovery{}
	if r.takes%2 == 0 {
		r.pending.Lost = 1
	}
	return taken
}

func TestRecoveryIsTheIterationsOwn(t *testing.T) {
	var out bytes.Buffer
	j := job.Job{Iterations: 2, Commands: []string{"show version"}}
	if err := Run(&recovering{}, j, strings.NewReader(""), report.NewWriter(&out), ticking()); err != nil {
		t.Fatal(err)
	}
	for _, line := range lines(t, &out) {
		if line.Recovery == nil || line.Recovery.Lost != 2 {
			t.Fatalf("iteration %d reported recovery %+v", line.Index, line.Recovery)
		}
	}
	out.Reset()
	if err := Run(&fake{}, j, strings.NewReader(""), report.NewWriter(&out), ticking()); err != nil {
		t.Fatal(err)
	}
	if line := lines(t, &out)[0]; line.Recovery != nil {
		t.Fatalf("a client that counts none reported %+v", line.Recovery)
	}
}
