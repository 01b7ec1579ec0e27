package gnmi

import (
	"errors"
	"io"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// QueueLength bounds the notifications a STREAM subscription has waiting
// to be sent. grpc-go's Send blocks while the client's flow control window
// is full; a client that reads slower than its subscriptions produce, or
// not at all, fills the queue next, and is dropped then: its producers
// (commits of the device, samplers) never wait for it.
const QueueLength = 512

// session is one STREAM subscription list being served.
type session struct {
	l     listing
	queue chan *gpb.SubscribeResponse
	// mu orders what producers queue: the initial state before changes.
	mu       sync.Mutex
	dropped  chan struct{}
	dropOnce sync.Once
	onDrop   func()
}

// enqueue queues resp, or drops the session when its queue is full.
// Callers hold mu.
func (ss *session) enqueue(resp *gpb.SubscribeResponse) {
	if resp == nil {
		return
	}
	select {
	case ss.queue <- resp:
	default:
		ss.dropOnce.Do(func() {
			close(ss.dropped)
			ss.onDrop()
		})
	}
}

// changed reports a commit's changes to the on-change subscriptions.
func (ss *session) changed(c change) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, sub := range ss.l.subs {
		if !sub.onChange {
			continue
		}
		resp := ss.l.notification(sub.selected(c.updated), c.at)
		var deleted []*gpb.Path
		for _, p := range c.deleted {
			if sub.path.Matches(p) {
				deleted = append(deleted, relative(ss.l.prefixLen, p))
			}
		}
		if len(deleted) > 0 {
			if resp == nil {
				resp = &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: &gpb.Notification{
					Timestamp: c.at.UnixNano(), Prefix: ss.l.prefix}}}
			}
			resp.GetUpdate().Delete = deleted
		}
		ss.enqueue(resp)
	}
}

// streamList serves a STREAM list until the client leaves or is dropped.
func (s *Server) streamList(stream gpb.GNMI_SubscribeServer, l listing, d *device) error {
	ss := &session{l: l, queue: make(chan *gpb.SubscribeResponse, QueueLength), dropped: make(chan struct{}),
		onDrop: s.o.Recorder.GNMISubscriptionDropped}
	ctx := stream.Context()
	stop := make(chan struct{})
	var workers sync.WaitGroup
	defer func() {
		d.unwatch(ss)
		close(stop)
		workers.Wait()
	}()

	ss.mu.Lock()
	leaves := d.watch(ss, time.Now())
	for _, sub := range l.subs {
		if !l.updatesOnly {
			ss.enqueue(l.state(sub, leaves))
		}
	}
	ss.enqueue(syncResponse)
	ss.mu.Unlock()

	for _, sub := range l.subs {
		if sub.sampleEvery > 0 {
			workers.Go(func() { ss.sample(d, sub, sub.selected(leaves), stop) })
		}
		if sub.onChange && sub.heartbeat > 0 {
			workers.Go(func() { ss.heartbeat(d, sub, stop) })
		}
	}
	failed := make(chan error, 2)
	// Not waited for: a Send blocked by flow control returns only once
	// this handler has returned.
	go func() { failed <- s.send(stream, ss, stop) }()
	// The client may close its side; a STREAM list takes no more requests.
	go func() {
		for {
			req, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				failed <- err
				return
			}
			if req.GetPoll() != nil || req.GetSubscribe() != nil {
				failed <- status.Error(codes.InvalidArgument, "a STREAM subscription takes no further requests")
				return
			}
		}
	}()
	select {
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-s.stop:
		// A subscription never ends on its own: shutdown ends it.
		return status.Error(codes.Unavailable, "the device is shutting down")
	case <-ss.dropped:
		s.o.Log.Info("subscriber dropped: it fell behind", "queue", QueueLength)
		return status.Errorf(codes.ResourceExhausted, "the client fell %d notifications behind; subscription dropped",
			QueueLength)
	case err := <-failed:
		return err
	}
}

// send sends what the session queues, until stop.
func (s *Server) send(stream gpb.GNMI_SubscribeServer, ss *session, stop <-chan struct{}) error {
	for {
		select {
		case resp := <-ss.queue:
			if err := stream.Send(resp); err != nil {
				return err
			}
			if resp.GetUpdate() != nil {
				s.o.Recorder.GNMIUpdates("stream", 1)
			}
		case <-stop:
			return nil
		}
	}
}

// sample reports a subscription's values every interval: those changed
// since the last report if it suppresses redundant ones, all of them at
// least every heartbeat.
func (ss *session) sample(d *device, sub subscription, initial []stamped, stop <-chan struct{}) {
	last := map[string]any{}
	for _, l := range initial {
		last[l.Path.String()] = l.Value
	}
	ticker := time.NewTicker(sub.sampleEvery)
	defer ticker.Stop()
	lastFull := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-ticker.C:
			leaves := sub.selected(d.current(now))
			full := !sub.suppress || (sub.heartbeat > 0 && now.Sub(lastFull) >= sub.heartbeat)
			var report []stamped
			for _, l := range leaves {
				if sub.volatileOnly && !l.Volatile {
					continue
				}
				key := l.Path.String()
				if full || last[key] != l.Value {
					report = append(report, l)
				}
				last[key] = l.Value
			}
			if full {
				lastFull = now
			}
			ss.mu.Lock()
			ss.enqueue(ss.l.notification(report, now))
			ss.mu.Unlock()
		}
	}
}

// heartbeat re-sends an on-change subscription's values every interval.
func (ss *session) heartbeat(d *device, sub subscription, stop <-chan struct{}) {
	ticker := time.NewTicker(sub.heartbeat)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-ticker.C:
			var report []stamped
			for _, l := range sub.selected(d.current(now)) {
				if !l.Volatile {
					report = append(report, l)
				}
			}
			ss.mu.Lock()
			ss.enqueue(ss.l.notification(report, now))
			ss.mu.Unlock()
		}
	}
}
