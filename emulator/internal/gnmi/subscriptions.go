package gnmi

import (
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/openconfig"
)

const (
	// MinInterval is the shortest sample and heartbeat interval the lab
	// accepts; real devices' floor is seconds, the lab's lets a client
	// measure how fast a stream can go.
	MinInterval = time.Millisecond
	// DefaultSampleInterval is a SAMPLE subscription's interval when it
	// names none, and TARGET_DEFINED's for counters.
	DefaultSampleInterval = 10 * time.Second
)

// subscription is one path of a subscription list and how it reports.
type subscription struct {
	path openconfig.Path
	// onChange reports the non-volatile leaves when a commit changes them.
	onChange bool
	// sampleEvery reports the leaves at this interval (0: never); only
	// the volatile ones when volatileOnly (TARGET_DEFINED's counters and
	// clock, its other leaves being on change).
	sampleEvery  time.Duration
	volatileOnly bool
	// suppress leaves out sampled values unchanged since the last report.
	suppress  bool
	heartbeat time.Duration
}

// listing is a subscription list, checked.
type listing struct {
	mode        gpb.SubscriptionList_Mode
	prefix      *gpb.Path
	prefixLen   int
	encoding    gpb.Encoding
	updatesOnly bool
	subs        []subscription
}

// modeLabel is the metrics label of a list's mode.
func (l listing) modeLabel() string {
	switch l.mode {
	case gpb.SubscriptionList_ONCE:
		return "once"
	case gpb.SubscriptionList_POLL:
		return "poll"
	}
	return "stream"
}

func parseList(list *gpb.SubscriptionList) (listing, error) {
	l := listing{mode: list.GetMode(), encoding: list.GetEncoding(), updatesOnly: list.GetUpdatesOnly()}
	if _, known := gpb.SubscriptionList_Mode_name[int32(l.mode)]; !known {
		return l, status.Errorf(codes.InvalidArgument, "unknown subscription list mode %d", l.mode)
	}
	if err := checkEncoding(l.encoding); err != nil {
		return l, err
	}
	prefixElems, err := fullPath(list.GetPrefix(), nil)
	if err != nil {
		return l, err
	}
	l.prefix, l.prefixLen = responsePrefix(list.GetPrefix(), prefixElems)
	if len(list.GetSubscription()) == 0 {
		return l, status.Error(codes.InvalidArgument, "the subscription list has no subscription")
	}
	for _, sub := range list.GetSubscription() {
		s, err := parseSubscription(list, sub)
		if err != nil {
			return l, err
		}
		l.subs = append(l.subs, s)
	}
	return l, nil
}

func parseSubscription(list *gpb.SubscriptionList, sub *gpb.Subscription) (subscription, error) {
	path, err := fullPath(list.GetPrefix(), sub.GetPath())
	if err != nil {
		return subscription{}, err
	}
	if !openconfig.InSchema(path) {
		return subscription{}, status.Errorf(codes.NotFound, "%s: no such node in openconfig-interfaces or openconfig-system", path)
	}
	s := subscription{path: path, suppress: sub.GetSuppressRedundant()}
	if s.heartbeat, err = interval(sub.GetHeartbeatInterval(), 0, "heartbeat_interval"); err != nil {
		return s, err
	}
	if list.GetMode() != gpb.SubscriptionList_STREAM {
		return s, nil
	}
	switch sub.GetMode() {
	case gpb.SubscriptionMode_ON_CHANGE:
		s.onChange = true
	case gpb.SubscriptionMode_SAMPLE:
		if s.sampleEvery, err = interval(sub.GetSampleInterval(), DefaultSampleInterval, "sample_interval"); err != nil {
			return s, err
		}
	case gpb.SubscriptionMode_TARGET_DEFINED:
		s.onChange, s.sampleEvery, s.volatileOnly = true, DefaultSampleInterval, true
	default:
		return s, status.Errorf(codes.InvalidArgument, "unknown subscription mode %d", sub.GetMode())
	}
	return s, nil
}

// interval reads an interval in nanoseconds: 0 is fallback, anything else
// at least MinInterval.
func interval(ns uint64, fallback time.Duration, field string) (time.Duration, error) {
	if ns == 0 {
		return fallback, nil
	}
	if ns < uint64(MinInterval) || ns > uint64(24*time.Hour) {
		return 0, status.Errorf(codes.InvalidArgument, "%s %d ns: from %d ns (1 ms, the lab's floor) to a day", field, ns,
			MinInterval.Nanoseconds())
	}
	return time.Duration(ns), nil
}

// selected is the leaves of a subscription among leaves.
func (s subscription) selected(leaves []stamped) []stamped {
	var out []stamped
	for _, l := range leaves {
		if s.path.Matches(l.Path) {
			out = append(out, l)
		}
	}
	return out
}

// notification reports leaves at a time; nil when there are none.
func (l listing) notification(leaves []stamped, at time.Time) *gpb.SubscribeResponse {
	if len(leaves) == 0 {
		return nil
	}
	plain := make([]openconfig.Leaf, len(leaves))
	for k, s := range leaves {
		plain[k] = s.Leaf
	}
	return &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_Update{Update: &gpb.Notification{
		Timestamp: at.UnixNano(), Prefix: l.prefix, Update: leafUpdates(plain, l.prefixLen, l.encoding)}}}
}

// state is a subscription's current values as one notification stamped
// with the latest change among them.
func (l listing) state(s subscription, leaves []stamped) *gpb.SubscribeResponse {
	selected := s.selected(leaves)
	var latest time.Time
	for _, v := range selected {
		if v.at.After(latest) {
			latest = v.at
		}
	}
	return l.notification(selected, latest)
}

var syncResponse = &gpb.SubscribeResponse{Response: &gpb.SubscribeResponse_SyncResponse{SyncResponse: true}}
