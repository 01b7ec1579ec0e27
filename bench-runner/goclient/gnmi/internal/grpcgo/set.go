package grpcgo

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/encoding/prototext"

	"transportlab/goclient/internal/loop"
)

// SetBatch runs one Set per iteration on the kept channel carrying every command's write:
// the description of the command's interface, set to a value no other iteration or command
// writes ("bench <session> <iteration>.<command>"). The descriptions the device had are
// read before the first iteration and put back when the mode ends (neither measured).
// Phase: rpcs.
type SetBatch struct {
	*Kept
	session   string
	iteration int
}

func newSetBatch(c *client) (*SetBatch, error) {
	k, err := openKept(c)
	if err != nil {
		return nil, err
	}
	return &SetBatch{Kept: k, session: sessionID()}, nil
}

// sessionID tells this process's writes from any other's.
func sessionID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// description is what command i (0-based) of iteration writes.
func description(session string, iteration, i int) string {
	return fmt.Sprintf("bench %s %d.%d", session, iteration, i+1)
}

// setRequest writes the n descriptions of one iteration in one request.
func (s *SetBatch) setRequest(n int) *gpb.SetRequest {
	request := &gpb.SetRequest{}
	for i := range n {
		request.Update = append(request.Update, &gpb.Update{
			Path: descriptionPath(pick(s.interfaces, i).name),
			Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{
				StringVal: description(s.session, s.iteration, i),
			}},
		})
	}
	return request
}

// Iterate runs one iteration.
func (s *SetBatch) Iterate(commands []string) loop.Result {
	s.iteration++
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	request := s.setRequest(len(commands))
	var response *gpb.SetResponse
	result.Err = phases.Measure("rpcs", func() (err error) {
		ctx, cancel := s.c.call()
		defer cancel()
		response, err = s.ch.gnmi.Set(ctx, request)
		return err
	})
	if result.Err == nil && len(response.GetResponse()) != len(request.GetUpdate()) {
		result.Err = fmt.Errorf("set of %d updates answered %d results", len(request.GetUpdate()), len(response.GetResponse()))
	}
	if result.Err == nil {
		result.Outputs = []string{prototext.Format(response)}
	}
	return result
}

// Close puts the descriptions back, then closes the channel.
func (s *SetBatch) Close() error {
	err := s.ch.restore(s.c, s.interfaces)
	if closeErr := s.ch.close(); err == nil {
		err = closeErr
	}
	return err
}
