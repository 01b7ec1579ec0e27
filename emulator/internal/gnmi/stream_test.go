package gnmi

import (
	"context"
	"io"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestSyncResponseFollowsTheInitialStateOfEverySubscription(t *testing.T) {
	f := startFleet(t, "arista_eos", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{
			{Path: path(t, "/system/config/hostname"), Mode: gpb.SubscriptionMode_ON_CHANGE},
			{Path: path(t, "/interfaces/interface[name=Ethernet1]/state/counters"), Mode: gpb.SubscriptionMode_SAMPLE},
			{Path: path(t, "/interfaces/interface/config/enabled"), Mode: gpb.SubscriptionMode_TARGET_DEFINED}}})
	initial := untilSync(t, sub)
	if len(initial) != 3 {
		t.Fatalf("%d notifications before sync_response, want 3", len(initial))
	}
	if n := len(initial[2].GetUpdate()); n != 5 {
		t.Errorf("enabled of %d interfaces, want the 5 of the seed", n)
	}
}

func TestUpdatesOnlySkipsTheInitialState(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, UpdatesOnly: true,
		Encoding: gpb.Encoding_PROTO, Subscription: []*gpb.Subscription{{Path: path(t, "/system/config/hostname"),
			Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	if n := untilSync(t, sub); len(n) != 0 {
		t.Fatalf("updates_only: %v before sync_response", n)
	}
	if err := f.stores[0].Apply("", "hostname renamed"); err != nil {
		t.Fatal(err)
	}
	resp, err := sub.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, v := leafOf(resp.GetUpdate()); v.GetStringVal() != "renamed" {
		t.Errorf("update %v", resp)
	}
}

func TestSetReachesOnChangeSubscribersWithDeletes(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	sub := subscribe(t, c, &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_JSON_IETF,
		Subscription: []*gpb.Subscription{{Path: path(t, "/interfaces/interface[name=GigabitEthernet3]/state"),
			Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	untilSync(t, sub)
	if _, err := c.Set(ctx(t, account.Password), &gpb.SetRequest{Update: []*gpb.Update{{
		Path: path(t, "/interfaces/interface[name=GigabitEthernet3]/config/enabled"),
		Val:  &gpb.TypedValue{Value: &gpb.TypedValue_BoolVal{BoolVal: false}}}}}); err != nil {
		t.Fatal(err)
	}
	resp, err := sub.Recv()
	if err != nil {
		t.Fatal(err)
	}
	changed := map[string]string{}
	for _, u := range resp.GetUpdate().GetUpdate() {
		elems := u.GetPath().GetElem()
		changed[elems[len(elems)-1].GetName()] = string(u.GetVal().GetJsonIetfVal())
	}
	for leaf, want := range map[string]string{"enabled": "false", "admin-status": `"DOWN"`, "oper-status": `"DOWN"`} {
		if changed[leaf] != want {
			t.Errorf("%s = %s, want %s (update %v)", leaf, changed[leaf], want, changed)
		}
	}
	if _, ok := changed["last-change"]; !ok {
		t.Errorf("oper-status changed, last-change did not: %v", changed)
	}
	if _, err := c.Set(ctx(t, account.Password), &gpb.SetRequest{Delete: []*gpb.Path{
		path(t, "/interfaces/interface[name=GigabitEthernet3]/config/description")}}); err != nil {
		t.Fatal(err)
	}
	resp, err = sub.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if d := resp.GetUpdate().GetDelete(); len(d) != 1 || d[0].GetElem()[len(d[0].GetElem())-1].GetName() != "description" {
		t.Errorf("deletes %v", d)
	}
}

func TestSlowSubscriberIsDroppedWithoutStallingOthers(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	d, _ := f.plan.Device(1)
	// A fixed, small window: the server's sends block as soon as the
	// client stops reading (grpc-go would otherwise grow it).
	slowClient := f.dial(t, d.Address.String(), grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	slow := subscribe(t, slowClient, &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_JSON_IETF,
		Subscription: []*gpb.Subscription{{Path: path(t, "/interfaces"), Mode: gpb.SubscriptionMode_SAMPLE,
			SampleInterval: uint64(MinInterval)}}})
	fast := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/interfaces/interface[name=Loopback0]/config/description"),
			Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	untilSync(t, fast)
	waitFor(t, "the slow subscriber to be dropped", func() bool { return f.rec.read(func() int { return f.rec.dropped }) == 1 })
	if err := f.stores[0].Apply("interface Loopback0", "description after the drop"); err != nil {
		t.Fatal(err)
	}
	resp, err := fast.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, v := leafOf(resp.GetUpdate()); v.GetStringVal() != "after the drop" {
		t.Errorf("the other subscriber got %v", resp)
	}
	// The dropped stream ends once the client drains what it was sent.
	for {
		_, err := slow.Recv()
		if err == nil {
			continue
		}
		if err == io.EOF || status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("the dropped stream ended with %v, want ResourceExhausted", err)
		}
		break
	}
	waitFor(t, "the dropped subscription to close", func() bool {
		return f.rec.read(func() int { return f.rec.subscriptions["stream"] }) == 1
	})
}

func TestSuppressRedundantSamplesOnlyChanges(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system/config/hostname"), Mode: gpb.SubscriptionMode_SAMPLE,
			SampleInterval: uint64(MinInterval), SuppressRedundant: true}}})
	untilSync(t, sub)
	if err := f.stores[0].Apply("", "hostname sampled"); err != nil {
		t.Fatal(err)
	}
	// Samples of the unchanged name were suppressed: the first one after
	// the initial state is the change.
	resp, err := sub.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, v := leafOf(resp.GetUpdate()); v.GetStringVal() != "sampled" {
		t.Errorf("first sample %v", resp)
	}
}

func TestHeartbeatResendsUnchangedValues(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system/config/hostname"), Mode: gpb.SubscriptionMode_ON_CHANGE,
			HeartbeatInterval: uint64(MinInterval)}}})
	untilSync(t, sub)
	for k := 0; k < 3; k++ {
		resp, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if _, v := leafOf(resp.GetUpdate()); v.GetStringVal() != "lab-r1" {
			t.Errorf("heartbeat %d: %v", k, resp)
		}
	}
}

func TestStreamTakesNoPoll(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system"), Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	untilSync(t, sub)
	if err := sub.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Poll{Poll: &gpb.Poll{}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Recv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a poll on a STREAM list: %v", err)
	}
}

func TestShutdownEndsSubscriptions(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system"), Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	untilSync(t, sub)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f.server.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown waited for the subscription: %v", err)
	}
	if _, err := sub.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("subscription after shutdown: %v", err)
	}
}
