package gnmi

import (
	"errors"
	"io"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Subscribe serves one subscription list: ONCE (the values, sync_response,
// end), POLL (the values and sync_response at each poll) or STREAM.
func (s *Server) Subscribe(stream gpb.GNMI_SubscribeServer) error {
	req, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return err
	}
	list := req.GetSubscribe()
	if list == nil {
		return status.Error(codes.InvalidArgument, "the first request of a Subscribe must be a subscription list")
	}
	l, err := parseList(list)
	if err != nil {
		return err
	}
	d := s.deviceOf(stream.Context())
	mode := l.modeLabel()
	s.o.Recorder.GNMISubscriptionOpened(mode)
	defer s.o.Recorder.GNMISubscriptionClosed(mode)
	switch l.mode {
	case gpb.SubscriptionList_ONCE:
		return s.sendState(stream, l, d)
	case gpb.SubscriptionList_POLL:
		return s.poll(stream, l, d)
	}
	return s.streamList(stream, l, d)
}

// sendState sends every subscription's values (unless updates_only), then
// sync_response.
func (s *Server) sendState(stream gpb.GNMI_SubscribeServer, l listing, d *device) error {
	if !l.updatesOnly {
		leaves := d.current(time.Now())
		for _, sub := range l.subs {
			if resp := l.state(sub, leaves); resp != nil {
				if err := stream.Send(resp); err != nil {
					return err
				}
				s.o.Recorder.GNMIUpdates(l.modeLabel(), 1)
			}
		}
	}
	return stream.Send(syncResponse)
}

// poll answers the list at once and at every poll request until the
// client closes its side.
func (s *Server) poll(stream gpb.GNMI_SubscribeServer, l listing, d *device) error {
	if err := s.sendState(stream, l, d); err != nil {
		return err
	}
	// Later answers carry every value: updates_only is for the first.
	l.updatesOnly = false
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if req.GetPoll() == nil {
			return status.Error(codes.InvalidArgument, "a POLL subscription takes poll requests only")
		}
		if err := s.sendState(stream, l, d); err != nil {
			return err
		}
	}
}
