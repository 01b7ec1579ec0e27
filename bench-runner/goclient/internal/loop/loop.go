// Package loop runs a mode's iterations and reports each one. Paced (the runner's way), it
// runs one iteration per step the runner writes (a JSON line with the commands), so the
// runner can mark its packet capture between iterations as it does for its own clients;
// otherwise it runs the job's warm-up and iterations back to back with the job's commands.
package loop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/report"
)

// Result is what one iteration produced. Err is a transport or protocol failure; the
// outputs of a successful iteration (and the HTTP statuses that came with them) are checked
// by the runner, not here.
type Result struct {
	Outputs     []string
	Statuses    []int
	Replies     []report.Reply
	Phases      map[string]float64
	Connections []report.Connection
	Err         error
}

// Iterator runs one iteration of a mode on whatever it opened beforehand.
type Iterator interface {
	Iterate(commands []string) Result
}

// Opened is an Iterator that opened connections before its first iteration (a kept
// connection, one that fetched a session ticket); the ready line reports them.
type Opened interface {
	Opened() []report.Connection
}

// Recovering is an Iterator whose client counts its own loss recovery (a QUIC library): the
// counts since the previous call, taken before an iteration (discarded: what happened between
// two iterations belongs to neither) and after it (reported).
type Recovering interface {
	TakeRecovery() report.Recovery
}

// Step is one line the runner writes in a paced job: run one iteration of commands.
type Step struct {
	Warmup   bool     `json:"warmup"`
	Commands []string `json:"commands"`
}

// Clock reads the time; time.Now in the program, a fake in tests.
type Clock func() time.Time

// Run reports every iteration to w until the runner's input ends (paced) or the job's
// iterations are done.
func Run(it Iterator, j job.Job, pace io.Reader, w *report.Writer, now Clock) error {
	if !j.Paced {
		for i := 1; i <= j.Warmup+j.Iterations; i++ {
			step := Step{Warmup: i <= j.Warmup, Commands: j.Commands}
			if err := w.Write(once(it, i, step, now)); err != nil {
				return err
			}
		}
		return nil
	}
	lines := bufio.NewScanner(pace)
	index := 0
	for lines.Scan() {
		step, err := ParseStep(lines.Bytes())
		if err != nil {
			return err
		}
		index++
		if err := w.Write(once(it, index, step, now)); err != nil {
			return err
		}
	}
	return lines.Err()
}

// ParseStep decodes a step; it must name at least one command.
func ParseStep(line []byte) (Step, error) {
	var step Step
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&step); err != nil {
		return Step{}, fmt.Errorf("step: %w", err)
	}
	if len(step.Commands) == 0 {
		return Step{}, errors.New("step: no commands")
	}
	return step, nil
}

func once(it Iterator, index int, step Step, now Clock) report.Line {
	recovering, counts := it.(Recovering)
	if counts {
		recovering.TakeRecovery()
	}
	begin := now()
	start := now()
	result := it.Iterate(step.Commands)
	end := now()
	finish := now()
	line := report.Line{
		Event:       report.EventIteration,
		Index:       index,
		Warmup:      step.Warmup,
		OK:          result.Err == nil,
		Outputs:     result.Outputs,
		Statuses:    result.Statuses,
		Replies:     result.Replies,
		Phases:      result.Phases,
		Connections: result.Connections,
	}
	report.Span{Begin: begin, Start: start, End: end, Finish: finish}.Apply(&line)
	if counts {
		recovery := recovering.TakeRecovery()
		line.Recovery = &recovery
	}
	if result.Err != nil {
		line.Error = result.Err.Error()
	}
	for _, output := range result.Outputs {
		line.Bytes += len(output)
	}
	for _, reply := range result.Replies {
		line.Bytes += len(reply.Text)
	}
	return line
}

// Phases times the named parts of an iteration, in milliseconds.
type Phases map[string]float64

// Measure runs f and adds its duration to the phase name.
func (p Phases) Measure(name string, f func() error) error {
	start := time.Now()
	err := f()
	p.Add(name, time.Since(start))
	return err
}

// Add adds d to the phase name.
func (p Phases) Add(name string, d time.Duration) {
	p[name] += float64(d) / float64(time.Millisecond)
}
