package gnmi

import (
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// subscribe opens a Subscribe call and sends list.
func subscribe(t *testing.T, c gpb.GNMIClient, list *gpb.SubscriptionList) gpb.GNMI_SubscribeClient {
	t.Helper()
	sub, err := c.Subscribe(ctx(t, account.Password))
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Subscribe{Subscribe: list}}); err != nil {
		t.Fatal(err)
	}
	return sub
}

// untilSync reads responses up to sync_response and returns the updates.
func untilSync(t *testing.T, sub gpb.GNMI_SubscribeClient) []*gpb.Notification {
	t.Helper()
	var out []*gpb.Notification
	for {
		resp, err := sub.Recv()
		if err != nil {
			t.Fatalf("before sync_response: %v", err)
		}
		if resp.GetSyncResponse() {
			return out
		}
		out = append(out, resp.GetUpdate())
	}
}

func leafOf(n *gpb.Notification) (string, *gpb.TypedValue) {
	u := n.GetUpdate()[0]
	elems := u.GetPath().GetElem()
	return elems[len(elems)-1].GetName(), u.GetVal()
}

func TestSubscribeOnce(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_ONCE, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system/config/hostname")},
			{Path: path(t, "/interfaces/interface[name=GigabitEthernet1]/state/counters")}}})
	updates := untilSync(t, sub)
	if len(updates) != 2 {
		t.Fatalf("%d notifications before sync_response, want one per subscription", len(updates))
	}
	if name, v := leafOf(updates[0]); name != "hostname" || v.GetStringVal() != "lab-r1" {
		t.Errorf("first update %s = %v", name, v)
	}
	if len(updates[1].GetUpdate()) != 8 {
		t.Errorf("%d counters", len(updates[1].GetUpdate()))
	}
	if _, err := sub.Recv(); err == nil {
		t.Error("ONCE: the stream goes on after sync_response")
	}
}

func TestSubscribePoll(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_POLL, Encoding: gpb.Encoding_JSON_IETF,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system/state/hostname")}}})
	if n := untilSync(t, sub); len(n) != 1 {
		t.Fatalf("first answer: %v", n)
	}
	if err := f.stores[0].Apply("", "hostname polled"); err != nil {
		t.Fatal(err)
	}
	if err := sub.Send(&gpb.SubscribeRequest{Request: &gpb.SubscribeRequest_Poll{Poll: &gpb.Poll{}}}); err != nil {
		t.Fatal(err)
	}
	n := untilSync(t, sub)
	if _, v := leafOf(n[0]); string(v.GetJsonIetfVal()) != `"polled"` {
		t.Errorf("polled hostname %s", v.GetJsonIetfVal())
	}
}

func TestSubscribeStreamOnChangeSeesCLIChanges(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/interfaces/interface[name=GigabitEthernet2]/config/description"),
			Mode: gpb.SubscriptionMode_ON_CHANGE}}})
	initial := untilSync(t, sub)
	if _, v := leafOf(initial[0]); len(initial) != 1 || v.GetStringVal() != "Lab LAN A" {
		t.Fatalf("initial state %v", initial)
	}
	before := time.Now()
	if err := f.stores[0].Apply("interface GigabitEthernet2", "description changed over SSH"); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	resp, err := sub.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, v := leafOf(resp.GetUpdate()); v.GetStringVal() != "changed over SSH" {
		t.Errorf("update %v", resp)
	}
	if ts := resp.GetUpdate().GetTimestamp(); ts < before.UnixNano() || ts > after.UnixNano() {
		t.Errorf("timestamp %d is not the commit's (between %d and %d)", ts, before.UnixNano(), after.UnixNano())
	}
}

func TestSubscribeStreamSample(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	sub := subscribe(t, f.client(t, 1), &gpb.SubscriptionList{Mode: gpb.SubscriptionList_STREAM, Encoding: gpb.Encoding_PROTO,
		Subscription: []*gpb.Subscription{{Path: path(t, "/system/state/current-datetime"),
			Mode: gpb.SubscriptionMode_SAMPLE, SampleInterval: uint64(MinInterval)}}})
	if n := untilSync(t, sub); len(n) != 1 {
		t.Fatalf("initial state %v", n)
	}
	for k := 0; k < 20; k++ {
		resp, err := sub.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if name, _ := leafOf(resp.GetUpdate()); name != "current-datetime" {
			t.Fatalf("sample %d: %v", k, resp)
		}
	}
}

func TestSubscribeRefusals(t *testing.T) {
	f := startFleet(t, "cisco_iosxe", 1)
	c := f.client(t, 1)
	for _, check := range []struct {
		name string
		list *gpb.SubscriptionList
		want codes.Code
	}{
		{"unknown path", &gpb.SubscriptionList{Subscription: []*gpb.Subscription{{Path: path(t, "/nowhere")}}}, codes.NotFound},
		{"sample below 1 ms", &gpb.SubscriptionList{Subscription: []*gpb.Subscription{{Path: path(t, "/system"),
			Mode: gpb.SubscriptionMode_SAMPLE, SampleInterval: 999_999}}}, codes.InvalidArgument},
		{"no subscription", &gpb.SubscriptionList{}, codes.InvalidArgument},
		{"ASCII", &gpb.SubscriptionList{Encoding: gpb.Encoding_ASCII,
			Subscription: []*gpb.Subscription{{Path: path(t, "/system")}}}, codes.Unimplemented},
	} {
		_, err := subscribe(t, c, check.list).Recv()
		if status.Code(err) != check.want {
			t.Errorf("%s: %v, want %s", check.name, err, check.want)
		}
	}
}
