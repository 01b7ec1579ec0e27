// Package ncmsg builds the XML the NETCONF modes send, the same documents the runner's own
// clients send (bench_runner/modes/netconf.py), and reads what the modes need from replies.
package ncmsg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
)

const (
	baseNS    = "urn:ietf:params:xml:ns:netconf:base:1.0"
	payloadNS = "urn:transport-lab:payload"
	nativeNS  = "http://cisco.com/ns/yang/Cisco-IOS-XE-native"
)

var (
	messageID   = regexp.MustCompile(`<rpc(?:-reply)?\b[^>]*\smessage-id="(\d+)"`)
	description = regexp.MustCompile(`(?s)<description>(.*?)</description>`)
)

// PayloadFilter is the subtree filter asking the lab device for a <get> reply of size bytes.
func PayloadFilter(size int) string {
	return fmt.Sprintf(`<payload xmlns="%s"><size>%d</size></payload>`, payloadNS, size)
}

func loopback(inner string) string {
	return fmt.Sprintf(
		`<native xmlns="%s"><interface><Loopback><name>0</name>%s</Loopback></interface></native>`,
		nativeNS, inner)
}

// DescriptionFilter selects the description of the interface netconf/edit-commit edits.
func DescriptionFilter() string { return loopback("<description/>") }

// EditText is the description the n-th edit sets (fixed length, as the runner's clients).
func EditText(n int) string { return fmt.Sprintf("bench-runner edit %08d", n) }

// DescriptionConfig is the <config> setting the description; nil removes it.
func DescriptionConfig(text *string) string {
	leaf := fmt.Sprintf(`<description xmlns:nc="%s" nc:operation="remove"/>`, baseNS)
	if text != nil {
		var escaped bytes.Buffer
		_ = xml.EscapeText(&escaped, []byte(*text)) // a bytes.Buffer never fails a write
		leaf = "<description>" + escaped.String() + "</description>"
	}
	return fmt.Sprintf(`<config xmlns="%s">%s</config>`, baseNS, loopback(leaf))
}

// Description is the description in a <get-config> reply filtered with DescriptionFilter,
// unescaped; nil when the interface has none.
func Description(reply string) (*string, error) {
	found := description.FindStringSubmatch(reply)
	if found == nil {
		return nil, nil
	}
	var text string
	if err := xml.Unmarshal([]byte("<d>"+found[1]+"</d>"), &text); err != nil {
		return nil, fmt.Errorf("description %q: %w", found[1], err)
	}
	return &text, nil
}

// MessageID is the message-id of an <rpc> or <rpc-reply> document; 0 when it has none.
func MessageID(document []byte) int {
	found := messageID.FindSubmatch(document)
	if found == nil {
		return 0
	}
	id, err := strconv.Atoi(string(found[1]))
	if err != nil {
		return 0
	}
	return id
}
