package xmltree

import (
	"strings"
	"testing"
)

func TestParseAndWrite(t *testing.T) {
	in := `<?xml version="1.0"?><!-- c --><a xmlns="urn:x" xmlns:nc="urn:nc"><b nc:operation="merge">1 &amp; 2</b><c xmlns="urn:y"><d/></c></a>`
	n, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if n.Name.Space != "urn:x" || n.Child("b").Value() != "1 & 2" || n.Child("c").Name.Space != "urn:y" {
		t.Fatalf("unexpected tree: %+v", n)
	}
	if op, _ := n.Child("b").AttrValue("operation"); op != "merge" {
		t.Fatalf("operation attribute lost: %+v", n.Child("b").Attr)
	}
	out := n.String()
	back, err := Parse([]byte(out))
	if err != nil {
		t.Fatalf("re-parse %q: %v", out, err)
	}
	if back.String() != out {
		t.Fatalf("not stable:\n%s\n%s", out, back.String())
	}
	if !strings.Contains(out, `<c xmlns="urn:y"><d/></c>`) || !strings.Contains(out, "1 &amp; 2") {
		t.Fatalf("serialisation: %s", out)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "<a>", "<a/><b/>", "text<a/>", `<!DOCTYPE a [<!ENTITY x "y">]><a/>`,
		strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1), "<a></b>"} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
}
