package grpcgo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"transportlab/goclient/internal/loop"
)

// subscription asks for the configuration of the commands' interfaces in mode, JSON_IETF.
func (k *Kept) subscription(mode gpb.SubscriptionList_Mode, n int) *gpb.SubscribeRequest {
	list := &gpb.SubscriptionList{Mode: mode, Encoding: gpb.Encoding_JSON_IETF}
	for i := range n {
		list.Subscription = append(list.Subscription, &gpb.Subscription{Path: configPath(pick(k.interfaces, i).name)})
	}
	return &gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: list}}
}

// untilSync reads a subscription's notifications up to its sync_response and returns the
// text of their updates' values.
func untilSync(stream gpb.GNMI_SubscribeClient) ([]string, error) {
	var notifications []*gpb.Notification
	for {
		response, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		switch r := response.GetResponse().(type) {
		case *gpb.SubscribeResponse_Update:
			notifications = append(notifications, r.Update)
		case *gpb.SubscribeResponse_SyncResponse:
			got := values(notifications)
			if len(got) == 0 {
				return nil, errors.New("sync_response before any update")
			}
			return got, nil
		}
	}
}

// SubscribeOnce runs one Subscribe ONCE per iteration on the kept channel for every
// command's path, read until its sync_response; the call is then cancelled (the device
// ends a ONCE subscription after its sync_response anyway). Phase: rpcs.
type SubscribeOnce struct{ *Kept }

// Iterate runs one iteration.
func (s SubscribeOnce) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	var got []string
	result.Err = phases.Measure("rpcs", func() error {
		ctx, cancel := s.c.call()
		defer cancel()
		stream, err := s.ch.gnmi.Subscribe(ctx)
		if err != nil {
			return err
		}
		if err := stream.Send(s.subscription(gpb.SubscriptionList_ONCE, len(commands))); err != nil {
			return err
		}
		got, err = untilSync(stream)
		return err
	})
	if result.Err == nil {
		result.Outputs = []string{strings.Join(got, "\n")}
	}
	return result
}

// SubscribePoll keeps one POLL subscription on the kept channel for the commands' paths,
// opened by the first iteration (the runner's first warm-up) and read to its first
// sync_response; every iteration sends one Poll and reads the updates up to its
// sync_response. Phase: rpcs.
type SubscribePoll struct {
	*Kept
	stream gpb.GNMI_SubscribeClient
	cancel context.CancelFunc
	paths  int
}

func (s *SubscribePoll) subscribe(n int) error {
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := s.ch.gnmi.Subscribe(ctx)
	if err == nil {
		err = stream.Send(s.subscription(gpb.SubscriptionList_POLL, n))
	}
	if err == nil {
		_, err = untilSync(stream)
	}
	if err != nil {
		cancel()
		return fmt.Errorf("poll subscription: %w", err)
	}
	s.stream, s.cancel, s.paths = stream, cancel, n
	return nil
}

// Iterate runs one iteration.
func (s *SubscribePoll) Iterate(commands []string) loop.Result {
	phases := loop.Phases{}
	result := loop.Result{Phases: phases}
	if s.stream == nil {
		if result.Err = s.subscribe(len(commands)); result.Err != nil {
			return result
		}
	}
	if len(commands) != s.paths {
		result.Err = fmt.Errorf("the poll subscription holds %d paths, the step has %d commands", s.paths, len(commands))
		return result
	}
	var got []string
	result.Err = phases.Measure("rpcs", func() error {
		poll := &gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Poll{Poll: &gpb.Poll{}}}
		if err := s.stream.Send(poll); err != nil {
			return err
		}
		var err error
		got, err = untilSync(s.stream)
		return err
	})
	if result.Err == nil {
		result.Outputs = []string{strings.Join(got, "\n")}
	}
	return result
}

// Close ends the subscription and closes the channel.
func (s *SubscribePoll) Close() error {
	if s.cancel != nil {
		s.cancel()
	}
	return s.Kept.Close()
}
