package ncmsg

import (
	"strings"
	"testing"
)

func TestPayloadFilter(t *testing.T) {
	want := `<payload xmlns="urn:transport-lab:payload"><size>1024</size></payload>`
	if got := PayloadFilter(1024); got != want {
		t.Fatalf("got %s", got)
	}
}

func TestDescriptionConfig(t *testing.T) {
	text := "a < b & c"
	want := `<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><native xmlns="http://cisco.com/ns/yang/Cisco-IOS-XE-native">` +
		`<interface><Loopback><name>0</name><description>a &lt; b &amp; c</description></Loopback></interface></native></config>`
	if got := DescriptionConfig(&text); got != want {
		t.Fatalf("got %s", got)
	}
	remove := `<description xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0" nc:operation="remove"/>`
	if got := DescriptionConfig(nil); !strings.Contains(got, remove) {
		t.Fatalf("nil description does not remove: %s", got)
	}
}

func TestDescriptionRoundTrip(t *testing.T) {
	reply := `<rpc-reply message-id="7"><data>` + loopback("<description>a &lt; b &amp; c</description>") + `</data></rpc-reply>`
	got, err := Description(reply)
	if err != nil || got == nil || *got != "a < b & c" {
		t.Fatalf("got %v, %v", got, err)
	}
	none, err := Description(`<rpc-reply message-id="7"><data/></rpc-reply>`)
	if err != nil || none != nil {
		t.Fatalf("no description: %v, %v", none, err)
	}
}

func TestEditText(t *testing.T) {
	if got := EditText(42); got != "bench-runner edit 00000042" {
		t.Fatalf("got %s", got)
	}
}

func TestMessageID(t *testing.T) {
	cases := map[string]int{
		`<?xml version="1.0"?><rpc xmlns="urn:x" message-id="101"><get/></rpc>`: 101,
		`<rpc-reply message-id="7" xmlns="urn:x"><ok/></rpc-reply>`:             7,
		`<hello/>`: 0,
	}
	for doc, want := range cases {
		if got := MessageID([]byte(doc)); got != want {
			t.Errorf("%s: got %d, want %d", doc, got, want)
		}
	}
}
