package grpcgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/report"
)

// arrival is one update of a STREAM subscription: the value, the device's timestamp of the
// change and the client's time of receipt (both nanoseconds on CLOCK_REALTIME: the lab's
// containers share the host's clock).
type arrival struct {
	Value      string `json:"value"`
	Interface  string `json:"interface"`
	DeviceNs   int64  `json:"timestamp_ns"`
	ReceivedNs int64  `json:"received_ns"`
}

// Stream measures update delays. A STREAM ON_CHANGE subscription to every interface's
// description is kept on one channel, opened before the first iteration and read to its
// sync_response; each iteration changes one description over a second kept channel (a Set,
// not measured) and waits for its update on the first. Its output is the update: the
// device's timestamp of the change and the time it was received, whose difference the
// runner records as the iteration's value. The descriptions are put back when the mode
// ends.
type Stream struct {
	*Kept
	setter    *channel
	session   string
	iteration int
	cancel    context.CancelFunc
	arrivals  chan arrival
	failed    chan error
}

func newStream(c *client) (*Stream, error) {
	k, err := openKept(c)
	if err != nil {
		return nil, err
	}
	s := &Stream{Kept: k, session: sessionID(), arrivals: make(chan arrival, 64), failed: make(chan error, 1)}
	if s.setter, err = c.dial(); err == nil {
		err = s.subscribe()
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Stream) subscribe() error {
	list := &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO}
	for _, it := range s.interfaces {
		list.Subscription = append(list.Subscription, &gpb.Subscription{
			Path: descriptionPath(it.name), Mode: gpb.SubscriptionMode_ON_CHANGE,
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	stream, err := s.ch.gnmi.Subscribe(ctx)
	if err == nil {
		err = stream.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: list}})
	}
	if err == nil {
		err = skipToSync(stream)
	}
	if err != nil {
		return fmt.Errorf("stream subscription: %w", err)
	}
	go s.receive(stream)
	return nil
}

// skipToSync reads the subscription's initial state up to its sync_response.
func skipToSync(stream gpb.GNMI_SubscribeClient) error {
	for {
		response, err := stream.Recv()
		if err != nil {
			return err
		}
		if response.GetSyncResponse() {
			return nil
		}
	}
}

// receive stamps every update as it arrives, until the subscription ends.
func (s *Stream) receive(stream gpb.GNMI_SubscribeClient) {
	for {
		response, err := stream.Recv()
		received := time.Now().UnixNano()
		if err != nil {
			s.failed <- err
			return
		}
		notification := response.GetUpdate()
		for _, update := range notification.GetUpdate() {
			elems := append(append([]*gpb.PathElem{}, notification.GetPrefix().GetElem()...), update.GetPath().GetElem()...)
			name, _ := interfaceLeaf(elems)
			s.arrivals <- arrival{
				Value: update.GetVal().GetStringVal(), Interface: name,
				DeviceNs: notification.GetTimestamp(), ReceivedNs: received,
			}
		}
	}
}

// Iterate changes one description and waits for its update; the commands only pace it.
func (s *Stream) Iterate([]string) loop.Result {
	s.iteration++
	name := pick(s.interfaces, s.iteration-1).name
	value := fmt.Sprintf("bench %s stream %d", s.session, s.iteration)
	ctx, cancel := s.c.call()
	defer cancel()
	request := &gpb.SetRequest{Update: []*gpb.Update{{
		Path: descriptionPath(name), Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: value}},
	}}}
	if _, err := s.setter.gnmi.Set(ctx, request); err != nil {
		return loop.Result{Err: fmt.Errorf("set %s description: %w", name, err)}
	}
	for {
		select {
		case got := <-s.arrivals:
			if got.Interface != name || got.Value != value {
				continue // an earlier change's update, or another interface's
			}
			text, err := json.Marshal(got)
			if err != nil {
				return loop.Result{Err: err}
			}
			return loop.Result{Outputs: []string{string(text)}}
		case err := <-s.failed:
			return loop.Result{Err: fmt.Errorf("stream subscription: %w", err)}
		case <-ctx.Done():
			return loop.Result{Err: fmt.Errorf("no update of %s description: %w", name, ctx.Err())}
		}
	}
}

// Opened is both channels: the subscription's and the setter's.
func (s *Stream) Opened() []report.Connection {
	return append(s.Kept.Opened(), s.setter.opened()...)
}

// Close ends the subscription, puts the descriptions back and closes both channels.
func (s *Stream) Close() error {
	if s.cancel != nil {
		s.cancel()
	}
	var errs []error
	if s.setter != nil {
		errs = append(errs, s.setter.restore(s.c, s.interfaces), s.setter.close())
	}
	errs = append(errs, s.Kept.Close())
	return errors.Join(errs...)
}

// sampleWindow is how long SampleRate counts updates: long enough for thousands of 1 ms
// samples, short enough to add little to a mode's time.
const sampleWindow = 2 * time.Second

// sampleInterval is the lab device's floor for SAMPLE subscriptions.
const sampleInterval = time.Millisecond

// rate is what one SAMPLE subscription delivered.
type rate struct {
	Updates        int     `json:"updates"`
	WindowS        float64 `json:"window_s"`
	SampleInterval float64 `json:"sample_interval_ms"`
	Path           string  `json:"path"`
}

// SampleRate counts, per step, the updates (notifications) one STREAM SAMPLE subscription
// at 1 ms delivers to the client in sampleWindow after its sync_response: the counters of
// the first interface. The stream mode's session runs it once, after its measured
// iterations (not a mode of the catalog: a rate, not a time per iteration).
type SampleRate struct{ *Kept }

// Iterate runs one window.
func (s SampleRate) Iterate([]string) loop.Result {
	path := interfacePath(s.interfaces[0].name, "state", "counters")
	list := &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{
			Path: path, Mode: gpb.SubscriptionMode_SAMPLE, SampleInterval: uint64(sampleInterval),
		}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := s.ch.gnmi.Subscribe(ctx)
	if err == nil {
		err = stream.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: list}})
	}
	if err == nil {
		err = skipToSync(stream)
	}
	if err != nil {
		return loop.Result{Err: fmt.Errorf("sample subscription: %w", err)}
	}
	counted := rate{WindowS: sampleWindow.Seconds(), SampleInterval: 1, Path: pathsText([]*gpb.Path{path})}
	deadline := time.Now().Add(sampleWindow)
	for time.Now().Before(deadline) {
		response, err := stream.Recv()
		if err != nil {
			return loop.Result{Err: fmt.Errorf("sample subscription: %w", err)}
		}
		if response.GetUpdate() != nil && time.Now().Before(deadline) {
			counted.Updates++
		}
	}
	text, err := json.Marshal(counted)
	if err != nil {
		return loop.Result{Err: err}
	}
	return loop.Result{Outputs: []string{string(text)}}
}
