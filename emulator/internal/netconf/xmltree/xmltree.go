// Package xmltree is a small namespace-aware XML element tree: NETCONF
// configuration and filters are handled as trees without a YANG schema.
package xmltree

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// xmlURL is the namespace of the reserved "xml" prefix (xml:lang).
const xmlURL = "http://www.w3.org/XML/1998/namespace"

// MaxDepth bounds element nesting, so hostile input cannot exhaust the
// stack of the recursive tree operations.
const MaxDepth = 128

// Node is one element. Text is the concatenated character data directly
// inside it (meaningful for leaves).
type Node struct {
	Name     xml.Name
	Attr     []xml.Attr
	Children []*Node
	Text     string
}

// Parse reads one document and returns its root element. Processing
// instructions, comments and directives are skipped; a DOCTYPE is refused
// (NETCONF forbids it, and it is how entity attacks start).
func Parse(data []byte) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var stack []*Node
	var root *Node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if root == nil || len(stack) > 0 {
				return nil, errors.New("xml: no complete root element")
			}
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root != nil && len(stack) == 0 {
				return nil, errors.New("xml: content after the root element")
			}
			if len(stack) >= MaxDepth {
				return nil, fmt.Errorf("xml: nesting deeper than %d", MaxDepth)
			}
			n := &Node{Name: t.Name}
			for _, a := range t.Attr {
				if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
					n.Attr = append(n.Attr, a)
				}
			}
			if len(stack) == 0 {
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, errors.New("xml: text outside the root element")
			}
		case xml.Directive:
			return nil, errors.New("xml: DOCTYPE and other directives are not allowed")
		}
	}
}

// IsLeaf reports whether the element has no child elements.
func (n *Node) IsLeaf() bool { return len(n.Children) == 0 }

// Value is the trimmed text of a leaf.
func (n *Node) Value() string { return strings.TrimSpace(n.Text) }

// Child returns the first child with the given local name, or nil.
func (n *Node) Child(local string) *Node {
	for _, c := range n.Children {
		if c.Name.Local == local {
			return c
		}
	}
	return nil
}

// AttrValue returns the value of the attribute with this local name (any
// namespace) and whether it is present.
func (n *Node) AttrValue(local string) (string, bool) {
	for _, a := range n.Attr {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// Clone returns a deep copy.
func (n *Node) Clone() *Node {
	c := &Node{Name: n.Name, Text: n.Text, Attr: append([]xml.Attr(nil), n.Attr...)}
	for _, ch := range n.Children {
		c.Children = append(c.Children, ch.Clone())
	}
	return c
}

// Elem builds an element in namespace space.
func Elem(space, local string, children ...*Node) *Node {
	return &Node{Name: xml.Name{Space: space, Local: local}, Children: children}
}

// Leaf builds a leaf element with text.
func Leaf(space, local, text string) *Node {
	return &Node{Name: xml.Name{Space: space, Local: local}, Text: text}
}

// Write serialises n. The default namespace is declared where it changes;
// namespaced attributes get generated prefixes. parentSpace is the default
// namespace in scope ("" at the document root).
func (n *Node) Write(b *bytes.Buffer, parentSpace string) {
	b.WriteByte('<')
	b.WriteString(n.Name.Local)
	if n.Name.Space != parentSpace {
		b.WriteString(` xmlns="`)
		xml.EscapeText(b, []byte(n.Name.Space))
		b.WriteByte('"')
	}
	for i, a := range n.Attr {
		b.WriteByte(' ')
		switch a.Name.Space {
		case "":
		case xmlURL:
			b.WriteString("xml:")
		default:
			fmt.Fprintf(b, `xmlns:a%d="`, i)
			xml.EscapeText(b, []byte(a.Name.Space))
			fmt.Fprintf(b, `" a%d:`, i)
		}
		b.WriteString(a.Name.Local)
		b.WriteString(`="`)
		xml.EscapeText(b, []byte(a.Value))
		b.WriteByte('"')
	}
	if len(n.Children) == 0 && n.Text == "" {
		b.WriteString("/>")
		return
	}
	b.WriteByte('>')
	if len(n.Children) == 0 {
		xml.EscapeText(b, []byte(n.Text))
	}
	for _, c := range n.Children {
		c.Write(b, n.Name.Space)
	}
	b.WriteString("</")
	b.WriteString(n.Name.Local)
	b.WriteByte('>')
}

// String serialises n as a standalone fragment.
func (n *Node) String() string {
	var b bytes.Buffer
	n.Write(&b, "")
	return b.String()
}
